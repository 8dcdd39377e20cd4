// Backward-data of a patchify layer (ConvNeXt's 4x4 stride-4 stem, its 2x2 stride-2
// downsampling, a ViT's patch embedding as a convolution): the stride equals the filter
// in every dimension, there is no padding, and the patches tile dx exactly. Then every
// dx pixel takes exactly one tap of exactly one dY pixel,
//
//   dx[n, z*Sz + a, y*Sy + b, x*Sx + c, g, ch] = sum_k dy[n, z, y, x, g, k] * w[g, k, a, b, c, ch],
//
// so dx is one GEMM per group, dy (rows: N x dY pixels; K/G deep) times W as it is stored
// ([K/G][taps x C/G], row-major: no flipped copy), whose rows of taps x C/G values are
// then scattered to the patches' pixels (patch_scatter). One GEMM and one copy, where the
// stride phases would run taps one-tap forward convolutions that each read all of dY.
// Used by the sm_90 backward-data kernel (cuda/sm90/conv_bwd_data_sm90.cuh, with
// cuda/scatter_patches.cuh); the host test checks the decomposition against the double
// reference (tests/unit/bwd_data_patches_test.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"

namespace kdecl::kernels {

// Why a normalized problem is no patchify backward-data (or its GEMM operands have no
// leading dimension), or nothing.
inline std::optional<std::string> bwd_data_as_patch_gemm_reason(const grouped_conv_problem& p) {
  if (p.dir != conv_direction::bwd_data) return std::string("not a backward-data problem");
  const auto dy = p.output_dims();
  std::int64_t taps = 1;
  for (int slot = 0; slot < 3; ++slot) {
    const std::int64_t f = p.filter_dims[slot];
    if (p.stride_dims[slot] != f) return std::string("the stride is not the filter's size");
    if (p.pad_left_dims[slot] != 0 || p.pad_right_dims[slot] != 0) return std::string("padded");
    if (f > 1 && p.dilation_dims[slot] != 1) return std::string("dilated");
    if (dy[std::size_t(slot)] * f != p.input_dims[slot]) return std::string("the patches do not tile dx");
    taps *= f;
  }
  if (taps == 1) return std::string("a 1x1 filter of stride 1 (a plain GEMM)");
  if (!pixels_evenly_strided(p, conv_tensor::output)) return std::string("dY's pixels not evenly strided");
  // W's taps x C/G values of each output channel one row: channels, then X, Y, Z packed.
  const conv_tensor_strides& w = p.wei_strides;
  std::int64_t step = p.c_per_group();
  for (int slot = 2; slot >= 0; --slot) {
    if (p.filter_dims[slot] > 1 && w.spatial[std::size_t(slot)] != step)
      return std::string("W's taps and channels not packed");
    step *= p.filter_dims[slot];
  }
  return std::nullopt;
}

// Where the GEMM's result goes: row m (image and dY pixel, X fastest), group g, tap t (Z, Y,
// X order, X fastest) holds dx's C/G channels of pixel (n, z*Sz + a, y*Sy + b, x*Sx + c).
// constexpr: the scatter kernel calls it on the device.
struct patch_scatter {
  int dy[3];                       // dY pixels per dimension (D, H, W)
  int taps[3];                     // the filter, = the stride
  std::int64_t image, group, spatial[3];  // dx's element strides

  constexpr int taps_per_patch() const { return taps[0] * taps[1] * taps[2]; }
  constexpr std::int64_t offset(int m, int g, int t) const {
    const int plane = dy[1] * dy[2];
    const int n = m / (dy[0] * plane), q = m % (dy[0] * plane);
    const int z = q / plane, r = q % plane;
    const int y = r / dy[2], x = r % dy[2];
    const int tap_plane = taps[1] * taps[2];
    const int a = t / tap_plane, b = t % tap_plane / taps[2], c = t % taps[2];
    return n * image + g * group + std::int64_t(z * taps[0] + a) * spatial[0] +
           std::int64_t(y * taps[1] + b) * spatial[1] + std::int64_t(x * taps[2] + c) * spatial[2];
  }
};

inline patch_scatter patch_scatter_of(const grouped_conv_problem& p) {
  const auto dy = p.output_dims();
  const conv_tensor_strides& s = p.in_strides;
  return {{int(dy[0]), int(dy[1]), int(dy[2])},
          {int(p.filter_dims[0]), int(p.filter_dims[1]), int(p.filter_dims[2])},
          s.n,
          s.g,
          {s.spatial[0], s.spatial[1], s.spatial[2]}};
}

}  // namespace kdecl::kernels
