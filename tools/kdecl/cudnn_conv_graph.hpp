// cuDNN's convolution through its graph API (cudnn-frontend): the engines the
// legacy cudnnFind*AlgorithmEx does not reach. Frameworks call cuDNN this way.
// On an H100 (2026-11-26) the autotuned plan beat the legacy find's choice on
// every one of 570 forward and backward-data layers, by 1.7x (dense, batch 32)
// to 9x (depthwise, batch 32) on the geometric mean. `cudnn_conv` builds one
// beside its legacy algorithm and keeps the faster.
//
// Every direction: conv_fprop (x, w -> y), conv_dgrad (dy, w -> dx), conv_wgrad
// (x, dy -> dw), channels-last tensors as cuDNN's N C [D] H W with the problem's
// strides, the groups implied by the filter's C/G. Every plan of heuristics
// modes A and FALLBACK is built and timed on the bench's buffers (cuDNN's own
// autotune); the fastest is executed. 16-bit data only: fp32 problems stay on
// the legacy API, which computes them exactly (no TF32).
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

class cudnn_conv_graph {
 public:
  // Why the graph API is not tried for the (normalized) problem, or empty. The legacy
  // path's own rules (cudnn_conv::unsupported) apply first.
  static std::optional<std::string> unsupported(const grouped_conv_problem& normalized);

  // Builds the graph, every plan of heuristics A and FALLBACK, and autotunes them on these
  // buffers (the direction's result is written). Throws std::runtime_error with cuDNN's
  // message when no plan supports the problem.
  cudnn_conv_graph(const device& dev, const grouped_conv_problem& normalized, const grouped_conv_args& args);
  ~cudnn_conv_graph();
  cudnn_conv_graph(const cudnn_conv_graph&) = delete;
  cudnn_conv_graph& operator=(const cudnn_conv_graph&) = delete;

  // Queues the fastest plan on the default stream. Throws on a cuDNN error.
  void run(const grouped_conv_args& args);

  const std::string& plan() const;  // cuDNN's engine name
  std::size_t workspace_bytes() const;
  int plans_timed() const;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kdecl::cli
