// Hopper (sm_90a) forward convolutions of 1-D and 3-D layers: the 128x128 tile
// of conv_sm90_tma.cpp (kernels/conv/cuda/sm90/) on NWGC and NDHWGC data, and in 3-D
// the 128x256 one (K >= 256: a 128x128 tile streams both operands from L2 at 64 FLOP a byte).
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto square = kdecl_instances::conv_sm90_tma::square(kdecl::conv_direction::fwd);
constexpr auto wide = kdecl_instances::conv_sm90_tma::wide(kdecl::conv_direction::fwd);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fwd_nd,
    targets(sm_90),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc),
    wide.dtype(fp16).ndim(3).layout(ndhwgc), wide.dtype(bf16).ndim(3).layout(ndhwgc),
    square.dtype(fp16).ndim(1).layout(nwgc), square.dtype(bf16).ndim(1).layout(nwgc));
