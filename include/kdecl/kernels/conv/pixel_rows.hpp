// Whether a convolution tensor's pixels form the rows of a matrix: one leading
// dimension steps from each pixel to the next, across rows and images (and whether the
// weights' filters do, one row per output channel). Kernels that
// hand a tensor to a GEMM mainloop or epilogue with a single leading dimension (or
// to a 2-D TMA box) need it. Kernels that write the output's pixels through a map
// instead (pixel_row_map) take any strides.
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

// Whether every output channel's filter (taps x C/G of a normalized problem's weights) is one
// contiguous row: the weights are then the K-major matrix [K/G, taps x C/G] of the implicit GEMM.
inline bool filter_taps_contiguous(const grouped_conv_problem& p) {
  std::int64_t packed = p.c_per_group();
  for (int slot = 2; slot >= 3 - p.ndim(); --slot) {
    if (p.filter_dims[slot] > 1 && p.wei_strides.spatial[std::size_t(slot)] != packed) return false;
    packed *= p.filter_dims[slot];
  }
  return true;
}

// Where output pixel m (N x pixels, W fastest) of a tensor starts: its image and
// spatial position times the tensor's element strides. The row map the sm_90
// epilogues take (kernels/gemm/cuda/sm90/output_rows.cuh) when the pixels are not
// evenly strided. constexpr: the kernels call it on the device.
struct pixel_row_map {
  static constexpr bool has_gaps = false;  // every pixel is an output row (output_rows.cuh)
  int extent[3];                   // pixels per dimension (D, H, W)
  std::int64_t image, spatial[3];  // element strides

  constexpr std::int64_t operator()(int m) const {
    const int plane = extent[1] * extent[2];
    const int n = m / (extent[0] * plane), q = m % (extent[0] * plane);
    const int z = q / plane, r = q % plane;
    const int y = r / extent[2], x = r % extent[2];
    return n * image + z * spatial[0] + y * spatial[1] + x * spatial[2];
  }
  // The map the epilogue takes for the tile starting at row m: this one (kernels/conv/cuda/sm90/).
  constexpr const pixel_row_map& of_tile(int) const { return *this; }
};

// The output pixels of a normalized problem.
inline pixel_row_map output_pixel_rows(const grouped_conv_problem& p) {
  const auto out = p.output_dims();
  const conv_tensor_strides& s = p.out_strides;
  return {{int(out[0]), int(out[1]), int(out[2])}, s.n, {s.spatial[0], s.spatial[1], s.spatial[2]}};
}

}  // namespace kdecl::kernels
