// Hopper (sm_90a) backward-data convolutions of the stride1 specialization: a stride-1
// backward-data is one forward convolution of dY with the flipped weights, which these
// run on halo tiles (kernels/conv/halo_tiles.hpp, cuda/sm90/conv_bwd_data_sm90.cuh): each
// tile's dY rows loaded once for all taps instead of once per tap. 2-D: the shapes the
// forward halo tiles pick (conv_sm90_tma_tiles.hpp); 3-D: 128x128. fp16 and bf16.
#include "conv_sm90_tma_tiles.hpp"

namespace {
using kdecl_instances::conv_sm90_tma::halo;
constexpr auto backward_data = kdecl::conv_direction::bwd_data;
namespace tiles = kdecl_instances::conv_sm90_tma;
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_halo_bwd_data,
    targets(sm_90),
    halo(tiles::square(backward_data), fp16, 2), halo(tiles::square(backward_data), bf16, 2),
    halo(tiles::narrow(backward_data), fp16, 2), halo(tiles::narrow(backward_data), bf16, 2),
    halo(tiles::tall(backward_data), fp16, 2), halo(tiles::tall(backward_data), bf16, 2),
    halo(tiles::pp_square(backward_data), fp16, 2), halo(tiles::pp_square(backward_data), bf16, 2),
    halo(tiles::pp_narrow(backward_data), fp16, 2), halo(tiles::pp_narrow(backward_data), bf16, 2),
    halo(tiles::square(backward_data), fp16, 3), halo(tiles::square(backward_data), bf16, 3));
