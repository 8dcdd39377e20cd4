// Hopper (sm_90a) backward convolutions on the pingpong schedule (two consumer
// warpgroups, a tile each; conv_sm90_tma_pingpong.cpp says why): backward-data, whose
// stride phases run the forward kernel (conv_bwd_data_sm90.cuh) with depths of
// C x taps of one phase, and backward-weight of 64-channel layers (M = K/G = 64),
// where the cooperative 64x256 tile has a single consumer warpgroup.
// Tiles: conv_sm90_tma_tiles.hpp.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto narrow = kdecl_instances::conv_sm90_tma::pp_narrow(kdecl::conv_direction::bwd_data);
constexpr auto square = kdecl_instances::conv_sm90_tma::pp_square(kdecl::conv_direction::bwd_data);
constexpr auto short_m = kdecl_instances::conv_sm90_tma::pp_short(kdecl::conv_direction::bwd_weight);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_pingpong_bwd,
    targets(sm_90),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc),
    short_m.dtype(fp16).ndim(2).layout(nhwgc), short_m.dtype(bf16).ndim(2).layout(nhwgc));
