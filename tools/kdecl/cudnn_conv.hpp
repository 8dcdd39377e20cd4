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
// The algorithm is cuDNN's fastest for the problem, found once with
// cudnnFind*AlgorithmEx on the bench's own buffers (not timed), with the
// workspace it needs allocated.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

class cudnn_conv {
 public:
  // Why cuDNN cannot express the (normalized, valid) problem, or empty: asymmetric
  // padding, a G-major layout, strides cuDNN's descriptors cannot hold.
  static std::optional<std::string> unsupported(const grouped_conv_problem& normalized);

  // Finds cuDNN's fastest algorithm on these buffers (it may write the direction's
  // result) and allocates its workspace on `dev`. Throws std::runtime_error with
  // cuDNN's message when cuDNN refuses the problem or fails.
  cudnn_conv(const device& dev, const grouped_conv_problem& normalized, const grouped_conv_args& args);
  ~cudnn_conv();
  cudnn_conv(const cudnn_conv&) = delete;
  cudnn_conv& operator=(const cudnn_conv&) = delete;

  // Queues the convolution on the default stream. Throws on a cuDNN error.
  void run(const grouped_conv_args& args);

  // e.g. "IMPLICIT_PRECOMP_GEMM".
  const std::string& algorithm() const;
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
