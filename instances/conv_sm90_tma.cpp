// Hopper (sm_90a) forward convolutions: the implicit GEMM of each group on the
// tma_wgmma GEMM's wgmma consumers, persistent scheduler and cshuffle epilogue,
// the input and the weights gathered by a cp.async producer warpgroup into the
// swizzled ring (kernels/conv/cuda/sm90/). 16-bit data, C/G a multiple of 8
// (16-byte gathers); layers with fewer channels per group go to the cp_async
// (conv_cp_async.cpp) and direct (conv_direct*.cpp) sets.
//   128x256, 4 stages   wide layers (K/G >= 256)
//   128x128, 6 stages   K/G = 128, and tile counts 128x256 leaves short of a wave
//   128x64,  8 stages   K/G = 64 (ResNet's first stage)
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto tma = grouped_conv().direction(fwd).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                         .vector_sizes(8, 8, 8);
constexpr auto wide = tma.tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16).stages(4);
constexpr auto square = tma.tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6);
constexpr auto narrow = tma.tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16).stages(8);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fwd,
    targets(sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc));
