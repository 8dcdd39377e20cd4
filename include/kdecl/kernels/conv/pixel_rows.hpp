// Whether a convolution tensor's pixels form the rows of a matrix: one leading
// dimension steps from each pixel to the next, across rows and images. Kernels that
// hand a tensor to a GEMM mainloop or epilogue with a single leading dimension (or
// to a 2-D TMA box) need it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

// For the input or the output of a normalized problem: the W stride steps to the next
// pixel everywhere, i.e. each outer stride (H, D, N) is the one inside it times that
// dimension's extent wherever the extent steps at all.
inline bool pixels_evenly_strided(const grouped_conv_problem& p, conv_tensor t) {
  const conv_tensor_strides& s = p.strides_of(t);
  const auto out = p.output_dims();
  std::int64_t step = s.spatial[2];
  for (int slot = 2; slot >= 3 - p.ndim(); --slot) {
    const std::int64_t extent = t == conv_tensor::output ? out[std::size_t(slot)] : p.input_dims[slot];
    if (extent > 1 && s.spatial[std::size_t(slot)] != step) return false;
    step *= extent;
  }
  return p.n <= 1 || s.n == step;
}

}  // namespace kdecl::kernels
