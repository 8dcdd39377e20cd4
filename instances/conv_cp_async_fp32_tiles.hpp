// The tile shapes of the fp32 convolution sets on the cp_async pipeline, for the
// direction each set declares (conv_cp_async_fp32.cpp, conv_cp_async_fp32_bwd.cpp,
// conv_group_major.cpp). tf32 multiplies on mma.sync (k steps of 8), exact fp32 on
// FFMA (the GEMM's SIMT warp, k steps of 1).
//   tf32_wide    128x128x16, 2x2 warps of 64x64
//   tf32_deep    128x128x32, 2x4 warps of 64x32: 128-byte k rows, half the ring barriers
//   tf32_narrow  64 wide, 32 deep: on the GEMM's N (forward K/G, backward-data C/G) or,
//                backward-weight, its M (K/G): ResNet's 64-channel layers
//   tf32_small   64x64x32 (forward: layers of few tiles)
//   tf32_any     64x64x16 with 4-byte vectors: any channel count, stride and alignment
//   exact        128x128x8, 2x4 warps, each lane a 16x4 FFMA micro-tile; exact_k16 16 deep;
//   exact_any    exact with 4-byte vectors
// The others take 16-byte vectors (C/G and K/G multiples of 4, 16-byte aligned tensors).
#pragma once

#include "kdecl/declare/conv.hpp"

namespace kdecl_instances::conv_cp_async_fp32 {

using namespace kdecl::dsl;
using kdecl::conv_direction;

constexpr auto base(conv_direction dir) {
  return grouped_conv().direction(dir).pipeline(cp_async).epilogue(cshuffle).dtype(fp32);
}
constexpr auto in_tf32(conv_direction dir) { return base(dir).compute(tf32); }

constexpr auto tf32_wide(conv_direction dir) {
  return in_tf32(dir).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8).stages(4);
}
constexpr auto tf32_deep(conv_direction dir) {
  return in_tf32(dir).tile(128, 128, 32).warps(2, 4, 1).warp_tile(64, 32, 8).stages(3);
}
constexpr auto tf32_narrow(conv_direction dir) {
  return dir == conv_direction::bwd_weight
             ? in_tf32(dir).tile(64, 128, 32).warps(2, 2, 1).warp_tile(32, 64, 8).stages(4)
             : in_tf32(dir).tile(128, 64, 32).warps(2, 2, 1).warp_tile(64, 32, 8).stages(4);
}
constexpr auto tf32_small(conv_direction dir) {
  return in_tf32(dir).tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4);
}
constexpr auto tf32_any(conv_direction dir) {
  return in_tf32(dir).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4).vector_sizes(1, 1, 1);
}
constexpr auto exact(conv_direction dir) {
  return base(dir).tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
}
constexpr auto exact_k16(conv_direction dir) {
  return base(dir).tile(128, 128, 16).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
}
constexpr auto exact_any(conv_direction dir) { return exact(dir).vector_sizes(1, 1, 1); }

}  // namespace kdecl_instances::conv_cp_async_fp32
