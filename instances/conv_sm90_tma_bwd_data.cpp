// Hopper (sm_90a) backward-data convolutions of stride-1 layers: each runs as the
// forward convolution of dy with the flipped, transposed filter on the sm_90
// forward kernel (kernels/conv/cuda/sm90/conv_bwd_data_sm90.cuh), with the tiles of
// conv_sm90_tma.cpp. Strided layers go to the cp_async stride-phase kernels
// (conv_cp_async_bwd.cpp); C/G and K/G must be multiples of 8 (16-byte gathers).
//   128x256, 4 stages   wide layers (C/G >= 256: the GEMM's N is the input channels)
//   128x128, 6 stages   C/G = 128, and tile counts 128x256 leaves short of a wave
//   128x64,  8 stages   C/G = 64
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto tma = grouped_conv().direction(bwd_data).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                         .vector_sizes(8, 8, 8);
constexpr auto wide = tma.tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16).stages(4);
constexpr auto square = tma.tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6);
constexpr auto narrow = tma.tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16).stages(8);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_bwd_data,
    targets(sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc));
