// Hopper (sm_90a) forward convolutions of 1-D and 3-D layers: the 128x128 tile
// of conv_sm90_tma.cpp (kernels/conv/cuda/sm90/) on NWGC and NDHWGC data.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto square = kdecl_instances::conv_sm90_tma::square(kdecl::conv_direction::fwd);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fwd_nd,
    targets(sm_90),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc),
    square.dtype(fp16).ndim(1).layout(nwgc), square.dtype(bf16).ndim(1).layout(nwgc));
