// Hopper (sm_90a) forward convolutions on the pingpong schedule: two consumer
// warpgroups, each on its own tile, so that one tile's epilogue runs under the other's
// main loop (kernels/conv/cuda/sm90/conv_sm90_kernel.cuh). Layers of short depth
// (64 or 128 channels x 9 taps) spend a large share of each tile in its epilogue on
// the cooperative schedule. Tiles: conv_sm90_tma_tiles.hpp.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto narrow = kdecl_instances::conv_sm90_tma::pp_narrow(kdecl::conv_direction::fwd);
constexpr auto square = kdecl_instances::conv_sm90_tma::pp_square(kdecl::conv_direction::fwd);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_pingpong_fwd,
    targets(sm_90),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc));
