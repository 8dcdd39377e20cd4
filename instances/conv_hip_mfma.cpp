// Grouped convolutions on AMD CDNA (HIP, MFMA): every direction as an implicit GEMM on the HIP
// GEMM's pieces (kernels/conv/hip/), for gfx90a (MI200) and gfx942 (MI300). Compiled by hipcc for
// gfx90a and gfx940 code objects and linked; never run (no AMD GPU is available to this project):
// docs/kernels/hip.md. The tiles follow CK Tile's grouped-convolution instances: compv4 forward,
// compv3 backward (CK's backward convolutions build with compv3 or mem only).
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mfma = grouped_conv().warps(2, 2, 1).epilogue(cshuffle);
// Dense layers: 128x128x32 blocks of 2x2 waves of 32x32x16 MFMA warp tiles, 16-byte gathers.
constexpr auto fwd_wide = mfma.direction(fwd).pipeline(compv4).tile(128, 128, 32).warp_tile(32, 32, 16);
constexpr auto data_wide = mfma.direction(bwd_data).pipeline(compv3).tile(128, 128, 32).warp_tile(32, 32, 16);
constexpr auto weight_wide = mfma.direction(bwd_weight).pipeline(compv3).tile(128, 128, 32).warp_tile(32, 32, 16);
// Channels per group that are multiples of 2 only (fp16/bf16): 4-byte gathers on 64x64 tiles.
constexpr auto fwd_narrow = mfma.direction(fwd).pipeline(compv3).tile(64, 64, 32).warp_tile(16, 16, 16)
                                .vector_sizes(2, 2, 2);
// fp32 data: 16x16x4 MFMA warp tiles on 64x64x16 blocks.
constexpr auto fwd_f32 = mfma.direction(fwd).pipeline(compv3).tile(64, 64, 16).warp_tile(16, 16, 4);
}  // namespace

DECL_KERNEL_SET(conv_hip_fwd,
    targets(gfx90a, gfx942),
    fwd_wide.dtype(fp16).ndim(2).layout(nhwgc), fwd_wide.dtype(bf16).ndim(2).layout(nhwgc),
    fwd_wide.dtype(bf16).ndim(2).layout(nhwgc).bias().activation(relu),
    fwd_wide.dtype(bf16).ndim(2).layout(nhwgc).bias().residual().activation(relu),
    fwd_narrow.dtype(bf16).ndim(2).layout(nhwgc),
    fwd_wide.dtype(bf16).ndim(3).layout(ndhwgc), fwd_wide.dtype(bf16).ndim(1).layout(nwgc),
    fwd_f32.dtype(fp32).ndim(2).layout(nhwgc));

DECL_KERNEL_SET(conv_hip_bwd,
    targets(gfx90a, gfx942),
    data_wide.dtype(fp16).ndim(2).layout(nhwgc), data_wide.dtype(bf16).ndim(2).layout(nhwgc),
    data_wide.dtype(bf16).ndim(3).layout(ndhwgc),
    weight_wide.dtype(fp16).ndim(2).layout(nhwgc), weight_wide.dtype(bf16).ndim(2).layout(nhwgc),
    weight_wide.dtype(bf16).ndim(3).layout(ndhwgc));
