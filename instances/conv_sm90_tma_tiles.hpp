// The tile shapes of the sm_90 wgmma convolution sets, for the direction each set
// declares: forward (conv_sm90_tma.cpp, conv_sm90_tma_nd.cpp) and
// backward-data, which runs the forward kernel (conv_sm90_tma_bwd_data.cpp), and
// backward-weight (conv_sm90_tma_bwd_weight.cpp).
// The GEMM's N is K/G forward, C/G backward-data and taps x C/G backward-weight
// (whose M is K/G).
//   wide     128x256, 4 stages   N >= 256
//   square   128x128, 6 stages   N = 128, and tile counts 128x256 leaves short of a wave
//   narrow   128x64,  8 stages   N = 64 (ResNet's first stage)
//   short    64x256,  5 stages   one consumer warpgroup: M = 64 (bwd_weight of 64-channel layers)
//   pingpong (two consumer warpgroups, a tile each, one's epilogue under the other's
//   main loop: layers of short depth, C/G x taps of 576 to 1152):
//     pp_narrow  128x64,  8 stages   N = 64
//     pp_square  128x128, 6 stages   N = 128
//     pp_short   64x256,  5 stages   backward-weight of 64-channel layers (M = 64)
//   (conv_sm90_tma_pingpong*.cpp)
//   merged_groups: narrow or pp_narrow with 2 to 16 groups per tile (conv_sm90_tma_merged_groups*.cpp)
//   halo: a forward or backward-data shape specialized for unit strides, loading halo tiles
//         (conv_sm90_tma_halo*.cpp),
//         and two taller ones whose 256 output pixels (8 rows x 32 columns) share each tap's weights:
//     tall         256x64,  5 stages
//     tall_square  256x128, 4 stages
//   any_channels: every operand element by element (any C/G and K/G: stems, odd channel
//                 counts), narrow forward and backward-data, short backward-weight
//                 (conv_sm90_tma_any_channels*.cpp)
#pragma once

#include "kdecl/declare/conv.hpp"

namespace kdecl_instances::conv_sm90_tma {

using namespace kdecl::dsl;

// 16-byte gathers of 16-bit data (C/G and K/G multiples of 8), the cooperative schedule.
constexpr auto base(kdecl::conv_direction dir) {
  return grouped_conv().direction(dir).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).vector_sizes(8, 8, 8);
}
constexpr auto wide(kdecl::conv_direction dir) {
  return base(dir).tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16).stages(4);
}
constexpr auto square(kdecl::conv_direction dir) {
  return base(dir).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6);
}
constexpr auto narrow(kdecl::conv_direction dir) {
  return base(dir).tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16).stages(8);
}
constexpr auto short_m(kdecl::conv_direction dir) {
  return base(dir).tile(64, 256, 64).warps(4, 1, 1).warp_tile(16, 256, 16).stages(5);
}

// The pingpong schedule: warps (4,1,1) describe one consumer warpgroup; the block runs two.
constexpr auto pingpong_base(kdecl::conv_direction dir) {
  return base(dir).scheduler(pingpong).warps(4, 1, 1);
}
constexpr auto pp_narrow(kdecl::conv_direction dir) {
  return pingpong_base(dir).tile(128, 64, 64).warp_tile(16, 64, 16).stages(8);
}
constexpr auto pp_square(kdecl::conv_direction dir) {
  return pingpong_base(dir).tile(128, 128, 64).warp_tile(16, 128, 16).stages(6);
}
constexpr auto pp_short(kdecl::conv_direction dir) {
  return pingpong_base(dir).tile(64, 256, 64).warp_tile(16, 256, 16).stages(5);
}

// Merged groups (conv_sm90_tma_merged_groups*.cpp): a tile shape, 2-D channels-last, with m
// neighbouring groups side by side (block-diagonal weights: kernels/conv/merged_groups.hpp).
constexpr auto merged_groups(grouped_conv_decl shape, kdecl::dtype t, int m) {
  return shape.ndim(2).layout(kdecl::conv_layout::nhwgc).dtype(t).groups_to_merge(m);
}

constexpr auto tall(kdecl::conv_direction dir) {
  return base(dir).tile(256, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16).stages(5);
}
constexpr auto tall_square(kdecl::conv_direction dir) {
  return base(dir).tile(256, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(4);
}

// The stride1 specialization (halo tiles: kernels/conv/halo_tiles.hpp): a forward or backward-data tile shape,
// 2-D or 3-D channels-last.
constexpr auto halo(grouped_conv_decl shape, kdecl::dtype t, int ndim) {
  return shape.ndim(ndim).layout(ndim == 2 ? kdecl::conv_layout::nhwgc : kdecl::conv_layout::ndhwgc).dtype(t)
      .specialization(kdecl::conv_specialization::stride1);
}

// Vectors of one element: any C/G and K/G (kernels/conv/cuda/channel_padded.cuh).
constexpr auto any_channels(kdecl::conv_direction dir) {
  return (dir == kdecl::conv_direction::bwd_weight ? short_m(dir) : narrow(dir)).vector_sizes(1, 1, 1);
}

}  // namespace kdecl_instances::conv_sm90_tma
