// cuDNN's convolution for a kdecl grouped-convolution problem: the vendor
// baseline of `kdecl bench conv` (CUDA builds with cuDNN found).
//
// Every direction maps onto cuDNN's own call on the same buffers: fwd onto
// cudnnConvolutionForward (x = input, w = weight, y = output), bwd_data onto
// cudnnConvolutionBackwardData (dy = output, dx = input), bwd_weight onto
// cudnnConvolutionBackwardFilter (x = input, dy = output, dw = weight).
// Channels-last activations (N [D] H W (G C)) are cuDNN's NHWC tensors with the
// groups inside the channel dimension, grouped through cudnnSetConvolutionGroupCount;
// kdecl's G K [Z] Y X C weights are cuDNN's NHWC (KRSC) filters with K = G K/G.
// The algorithm is cuDNN's fastest for the problem: the legacy API's, found once
// with cudnnFind*AlgorithmEx on the bench's own buffers, with the workspace it
// needs allocated; and, where cudnn-frontend is built in, the graph API's best
// autotuned plan (cudnn_conv_graph.hpp), which reaches engines the legacy find
// does not. Both are timed (median of 7) and the faster is the one run().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

// The spatial slots cuDNN sees: H and W for 1-D (H = 1) and 2-D problems, D, H and W for 3-D.
std::vector<int> cudnn_spatial_slots(const grouped_conv_problem& normalized);

// An activation (input with C channels, output with K) as cuDNN's N C [D] H W dimensions with
// the problem's strides; channels are one stride-1 dimension. Both cuDNN paths describe it so.
struct cudnn_tensor_shape {
  std::vector<std::int64_t> dims, strides;
};
cudnn_tensor_shape cudnn_activation_shape(const grouped_conv_problem& normalized, conv_tensor t);

// How the baseline was chosen: the legacy find's algorithm and the graph API's plan, each timed.
struct cudnn_conv_choice {
  std::string legacy_algorithm;
  double legacy_ms = -1;
  std::string graph_plan;   // empty when the graph path was not tried or failed (graph_error says why)
  int graph_plans = 0;      // plans built and autotuned
  double graph_ms = -1;
  std::string graph_error;
  bool graph_chosen = false;
};

class cudnn_conv {
 public:
  // Why cuDNN cannot express the (normalized, valid) problem, or empty: asymmetric
  // padding, a G-major layout, strides cuDNN's descriptors cannot hold.
  static std::optional<std::string> unsupported(const grouped_conv_problem& normalized);

  // Finds cuDNN's fastest algorithm and graph plan on these buffers (they may write the
  // direction's result), times both, and allocates the faster one's workspace on `dev`. Throws std::runtime_error with
  // cuDNN's message when cuDNN refuses the problem or fails.
  cudnn_conv(const device& dev, const grouped_conv_problem& normalized, const grouped_conv_args& args);
  ~cudnn_conv();
  cudnn_conv(const cudnn_conv&) = delete;
  cudnn_conv& operator=(const cudnn_conv&) = delete;

  // Queues the convolution on the default stream. Throws on a cuDNN error.
  void run(const grouped_conv_args& args);

  // e.g. "IMPLICIT_PRECOMP_GEMM", or "graph <engine name>" when the graph API's plan won.
  const std::string& algorithm() const;
  const cudnn_conv_choice& choice() const;
  std::size_t workspace_bytes() const;
  // What cuDNN's find measured for the chosen algorithm (milliseconds).
  double find_ms() const;

  // "9.19.0 (built with 9.19.0)"; throws when the loaded libcudnn's major version differs
  // from the headers' (cuDNN keeps its ABI only within a major version).
  static std::string version();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace kdecl::cli
