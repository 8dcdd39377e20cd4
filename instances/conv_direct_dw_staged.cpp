// TMA-staged depthwise forward convolutions on sm_90 (pipeline direct_conv, stages 2;
// kernels/conv/cuda/direct/dw_staged_sm90.cuh): each block keeps one block of channels'
// taps in registers and walks output tiles, one TMA box of input + halo per tile, double
// buffered; each thread computes 2 channels of an R x Q patch of outputs (warp_tile =
// (Q columns, 2 channels, R rows)). Filters 3x3, 5x5, 7x7, strides 1 and 2, C a multiple of 8.
// Shapes from a probe on an H200 over MobileNet V2, EfficientNet-B0 and ConvNeXt-T layers at
// batch 32 (docs/perf/h200-2026-11-28-dw-staged/): 32-channel blocks of 8x16 outputs for 3x3,
// 64-thread blocks of 8x8 for 5x5 and 7x7 (168 registers), 64-channel blocks where C is a
// multiple of 64, two-row patches for stride 2 (smaller boxes), and 7-row patches in 7x8 tiles for
// 14x14 and 7x7 images (3x3 and 5x5 filters there 5-7% faster than 8-row tiles; worse for 7x7 filters).
// The kernel's definition is included here only (dw_staged_sm90_decl.cuh says why).
#include "kdecl/declare/conv.hpp"
#if defined(__CUDACC__) && !defined(__HIPCC__)
#include "kdecl/kernels/conv/cuda/direct/dw_staged_sm90.cuh"
#endif

namespace {
using namespace kdecl::dsl;
constexpr auto staged = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(direct_conv).stages(2)
                            .vector_sizes(2, 1, 2);
// tile (rows, columns, channels), warps, warp_tile (columns, channels, rows) per thread.
constexpr auto c32_8x16_r4 = staged.tile(8, 16, 32).warps(4, 1, 1).warp_tile(4, 2, 4);
constexpr auto c64_8x8_r4 = staged.tile(8, 8, 64).warps(4, 1, 1).warp_tile(4, 2, 4);
constexpr auto c32_8x8_r2 = staged.tile(8, 8, 32).warps(4, 1, 1).warp_tile(4, 2, 2);
constexpr auto c32_8x8_r4 = staged.tile(8, 8, 32).warps(2, 1, 1).warp_tile(4, 2, 4);
constexpr auto c64_4x8_r2 = staged.tile(4, 8, 64).warps(4, 1, 1).warp_tile(4, 2, 2);
constexpr auto c32_16x16_r8 = staged.tile(16, 16, 32).warps(4, 1, 1).warp_tile(4, 2, 8);
constexpr auto c64_7x8_r7 = staged.tile(7, 8, 64).warps(2, 1, 1).warp_tile(4, 2, 7);
}  // namespace

DECL_KERNEL_SET(conv_direct_dw_staged_fwd,
    targets(sm_90),
    c32_8x16_r4.dtype(fp16), c32_8x16_r4.dtype(bf16), c64_8x8_r4.dtype(fp16), c64_8x8_r4.dtype(bf16),
    c32_8x8_r2.dtype(fp16), c32_8x8_r2.dtype(bf16), c32_8x8_r4.dtype(fp16), c32_8x8_r4.dtype(bf16),
    c64_4x8_r2.dtype(fp16), c64_4x8_r2.dtype(bf16), c32_16x16_r8.dtype(fp16), c32_16x16_r8.dtype(bf16),
    c64_7x8_r7.dtype(fp16), c64_7x8_r7.dtype(bf16));
