// Hopper (sm_90a) forward convolutions of the stride1 specialization: halo tiles
// (kernels/conv/halo_tiles.hpp, kernels/conv/cuda/sm90/conv_fwd_halo_sm90.cuh). Each
// 64-channel chunk of a tile's input rows is loaded once for all taps of a filter row
// instead of once per tap: unit-stride 3x3 layers (ResNet's, U-Net's) read 3.6 to 4.8
// times fewer bytes from L2. The shapes of the im2col sets (conv_sm90_tma_tiles.hpp),
// cooperative and pingpong, and two 256-pixel tiles (8 x 32) that load each tap's weights
// for twice the pixels; 2-D.
#include "conv_sm90_tma_tiles.hpp"

namespace {
using kdecl_instances::conv_sm90_tma::halo;
constexpr auto forward = kdecl::conv_direction::fwd;
namespace tiles = kdecl_instances::conv_sm90_tma;
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_halo_fwd,
    targets(sm_90),
    halo(tiles::wide(forward), fp16, 2), halo(tiles::wide(forward), bf16, 2),
    halo(tiles::square(forward), fp16, 2), halo(tiles::square(forward), bf16, 2),
    halo(tiles::narrow(forward), fp16, 2), halo(tiles::narrow(forward), bf16, 2),
    halo(tiles::tall(forward), fp16, 2), halo(tiles::tall(forward), bf16, 2),
    halo(tiles::tall_square(forward), fp16, 2), halo(tiles::tall_square(forward), bf16, 2));

DECL_KERNEL_SET(conv_sm90_tma_halo_pingpong_fwd,
    targets(sm_90),
    halo(tiles::pp_square(forward), fp16, 2), halo(tiles::pp_square(forward), bf16, 2),
    halo(tiles::pp_narrow(forward), fp16, 2), halo(tiles::pp_narrow(forward), bf16, 2));
