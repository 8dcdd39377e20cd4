// Hopper (sm_90a) forward convolutions of 1-D and 3-D layers: the 128x128 tile
// of conv_sm90_tma.cpp (kernels/conv/cuda/sm90/) on NWGC and NDHWGC data.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto square = grouped_conv().direction(fwd).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                            .vector_sizes(8, 8, 8).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fwd_nd,
    targets(sm_90),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc),
    square.dtype(fp16).ndim(1).layout(nwgc), square.dtype(bf16).ndim(1).layout(nwgc));
