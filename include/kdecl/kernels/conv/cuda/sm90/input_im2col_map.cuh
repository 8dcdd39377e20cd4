// The input of a convolution as TMA's im2col mode loads it (kernels/cuda/sm90/
// tensor_map_im2col.cuh): 64 output pixels' worth of input pixels x 64 channels of
// one group at one filter tap per load. Shared by the sm_90 forward kernel (its A
// operand, K-major) and backward-weight kernel (its B operand, N-major): the same
// rows of 128 bytes in shared memory either way.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/cuda/sm90/tensor_map_im2col.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int im2col_channels_per_load = 64;  // one 128-byte row of 16-bit data
inline constexpr int im2col_pixels_per_load = 64;

// Why TMA cannot load the input of `p` this way (the caller then gathers), or nothing:
// a 64-channel slice must lie in one group and one tap (C/G a multiple of 64), and the
// groups' channels must be adjacent in each input pixel. Padding, strides and extents TMA
// cannot encode show when the map is built.
inline std::optional<std::string> input_im2col_reason(const grouped_conv_problem& p) {
  if (p.c_per_group() % im2col_channels_per_load != 0) return std::string("C/G is not a multiple of 64");
  if (p.g > 1 && p.in_strides.g != p.c_per_group()) return std::string("the groups' input channels are not adjacent");
  if (p.in_strides.spatial[2] < p.g * p.c_per_group()) return std::string("input pixels overlap");
  return std::nullopt;
}

// The im2col map of `p`'s input at `in` (a normalized problem). Empty on success.
inline std::optional<std::string> encode_input_im2col(CUtensorMap& map, const grouped_conv_problem& p, const void* in) {
  im2col_view v{};
  v.base = in;
  v.type = p.in_type;
  v.rank = p.ndim();
  v.channels = p.g * p.c_per_group();
  for (int d = 0; d < v.rank; ++d) {
    const std::size_t slot = std::size_t(2 - d);  // W first
    v.size[d] = p.input_dims[slot];
    v.stride[d] = p.in_strides.spatial[slot];
    v.pad_lo[d] = int(p.pad_left_dims[slot]);
    v.pad_hi[d] = int(p.pad_right_dims[slot]);
    v.dilation[d] = int(p.dilation_dims[slot]);
    v.filter[d] = int(p.filter_dims[slot]);
    v.conv_stride[d] = int(p.stride_dims[slot]);
  }
  v.images = p.n;
  v.image_stride = p.in_strides.n;
  v.channels_per_load = im2col_channels_per_load;
  v.pixels_per_load = im2col_pixels_per_load;
  return encode_im2col_tensor_map(map, v);
}

// The coordinates of one im2col load (tma_load_im2col.cuh), W first: the first output pixel's
// image and window origin, and a tap's offset (the tap times the dilation).
struct im2col_window {
  int image;
  int origin[3];
};

template <int Ndim>
__device__ __forceinline__ im2col_window im2col_window_of(const kernels::conv_gather_geometry& geo, int first_pixel) {
  const kernels::pixel_window w = kernels::pixel_window_of(geo, first_pixel);
  im2col_window r{w.image, {0, 0, 0}};
#pragma unroll
  for (int d = 0; d < Ndim; ++d) r.origin[d] = w.start[2 - d];
  return r;
}

template <int Ndim>
__device__ __forceinline__ void im2col_tap_offsets(const kernels::conv_gather_geometry& geo, int tap, int (&reach)[3]) {
  const kernels::tap_position t = kernels::tap_position_of(geo, tap);
#pragma unroll
  for (int d = 0; d < 3; ++d) reach[d] = d < Ndim ? t.f[2 - d] * geo.dilation[2 - d] : 0;
}

}  // namespace kdecl::kernels::cuda::sm90
