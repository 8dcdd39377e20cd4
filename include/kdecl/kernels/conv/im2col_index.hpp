// The index arithmetic of the forward convolution's im2col operand, shared by
// the GPU gathers (cuda/sm80/im2col_loader.cuh, cuda/sm90/, hip/; the functions run on the device:
// constexpr functions are callable there) and the host tests that check it
// against the convolution's definition (tests/unit/im2col_index_test.cpp).
//
// Row m of the implicit GEMM is output pixel (n, od, oh, ow), depth kk is
// (filter tap, input channel c) with c fastest and taps in (z, y, x) order;
// A(m, kk) = input(n, o*stride - pad + tap*dilation, group, c), zero outside.
#pragma once

#include <cstdint>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

// The convolution geometry the gather needs (3-D; lower ranks have leading extents of 1).
struct conv_gather_geometry {
  int m, k;                    // implicit GEMM rows (N x output pixels) and depth (C/G x taps)
  int cg;                      // input channels per group
  int out[3], in[3];           // output and input sizes (D, H, W)
  int filter[3], stride[3], dilation[3], pad[3];
  std::int64_t in_n, in_s[3];  // input element strides: image, D, H, W
};

// Of a normalized problem whose sizes fit in int (the kernel's why_not checks), of any direction:
// the forward gather over its input (m = N x output pixels, k = taps x C/G; backward-weight's
// depth and columns).
inline conv_gather_geometry gather_geometry_of(const grouped_conv_problem& p) {
  conv_gather_geometry geo{};
  const auto out = p.output_dims();
  geo.m = int(p.n * p.output_pixels());
  geo.k = int(p.c_per_group() * p.filter_taps());
  geo.cg = int(p.c_per_group());
  for (int d = 0; d < 3; ++d) {
    geo.out[d] = int(out[std::size_t(d)]);
    geo.in[d] = int(p.input_dims[d]);
    geo.filter[d] = int(p.filter_dims[d]);
    geo.stride[d] = int(p.stride_dims[d]);
    geo.dilation[d] = int(p.dilation_dims[d]);
    geo.pad[d] = int(p.pad_left_dims[d]);
    geo.in_s[d] = p.in_strides.spatial[std::size_t(d)];
  }
  geo.in_n = p.in_strides.n;
  return geo;
}

// Output pixel q of the batch (N x output pixels, W fastest): its image and the input
// position of its filter window's first tap (D, H, W).
struct pixel_window {
  int image;
  int start[3];
};

constexpr pixel_window pixel_window_of(const conv_gather_geometry& geo, int q) {
  const int pixels = geo.out[0] * geo.out[1] * geo.out[2];
  const int n = q / pixels, p = q % pixels;
  const int o[3] = {p / (geo.out[1] * geo.out[2]), p / geo.out[2] % geo.out[1], p % geo.out[2]};
  pixel_window w{n, {0, 0, 0}};
  for (int d = 0; d < 3; ++d) w.start[d] = o[d] * geo.stride[d] - geo.pad[d];
  return w;
}

// The filter position (D, H, W) of tap index `tap` (taps in (z, y, x) order, x fastest).
struct tap_position {
  int f[3];
};

constexpr tap_position tap_position_of(const conv_gather_geometry& geo, int tap) {
  return {{tap / (geo.filter[1] * geo.filter[2]), tap / geo.filter[2] % geo.filter[1], tap % geo.filter[2]}};
}

// What one row (output pixel) contributes to every address: its image's offset
// and the input position of its filter's first tap.
struct im2col_row {
  std::int64_t base;
  int start[3];
};

constexpr im2col_row im2col_row_of(const conv_gather_geometry& geo, int m) {
  const pixel_window w = pixel_window_of(geo, m);
  return {std::int64_t(w.image) * geo.in_n, {w.start[0], w.start[1], w.start[2]}};
}

// The element offset of A(m, kk) from the group's input, or false where the
// tap falls into the padding (A is zero there). kk < geo.k.
constexpr bool im2col_offset(const conv_gather_geometry& geo, const im2col_row& row, int kk, std::int64_t& at) {
  const int tap = kk / geo.cg, c = kk - tap * geo.cg;
  const tap_position t = tap_position_of(geo, tap);
  at = row.base + c;
  bool inside = true;
  for (int d = 0; d < 3; ++d) {
    const int i = row.start[d] + t.f[d] * geo.dilation[d];
    inside = inside && i >= 0 && i < geo.in[d];
    at += std::int64_t(i) * geo.in_s[d];
  }
  return inside;
}

}  // namespace kdecl::kernels
