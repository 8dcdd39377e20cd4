// Hopper (sm_90a) forward convolutions of the stride1 specialization on halo tiles
// (conv_sm90_tma_halo.cpp), 3-D: one halo box per 64-channel chunk and filter depth.
// The shapes video networks' 3x3x3 layers pick from the im2col sets.
#include "conv_sm90_tma_tiles.hpp"

namespace {
using kdecl_instances::conv_sm90_tma::halo;
constexpr auto forward = kdecl::conv_direction::fwd;
namespace tiles = kdecl_instances::conv_sm90_tma;
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_halo_3d_fwd,
    targets(sm_90),
    halo(tiles::square(forward), fp16, 3), halo(tiles::square(forward), bf16, 3),
    halo(tiles::narrow(forward), fp16, 3), halo(tiles::narrow(forward), bf16, 3),
    halo(tiles::pp_square(forward), fp16, 3), halo(tiles::pp_square(forward), bf16, 3));
