// Direct forward convolutions (pipeline direct_conv, kernels/conv/cuda/direct/):
// depthwise layers and layers with few channels per group (stems, ResNeXt-like
// groups), memory-bound, on CUDA cores; built for sm_80 and sm_90. 2-D NHWGC and 1-D NWGC,
// 16-bit data. One instance per channel vector: the dispatcher takes the widest
// one C, K and the pointers allow.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto direct = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(direct_conv);
constexpr auto direct_1d = grouped_conv().direction(fwd).ndim(1).layout(nwgc).pipeline(direct_conv);
// 16-byte vectors: 8x8 output pixels x 64 channels per block of 256 threads,
// 8 channels x 2 pixels per thread.
constexpr auto v16 = direct.tile(8, 8, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
// Variants of the 16-byte kernel: 8x16 pixels (4 per thread: less halo, taps read once per 4
// pixels); 32 channels per block of 128 threads (layers with 32 or 96 channels); 4x8 pixels x 128
// channels (wide layers on small images).
constexpr auto v16_wide = direct.tile(8, 16, 64).warps(8, 1, 1).warp_tile(4, 8, 1).vector_sizes(8, 1, 8);
constexpr auto v16_c32 = direct.tile(8, 8, 32).warps(4, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
constexpr auto v16_c128 = direct.tile(4, 8, 128).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
// 4-byte vectors (C and K multiples of 2): 8x8 x 64, 2 channels x 8 pixels per thread.
constexpr auto v4 = direct.tile(8, 8, 64).warps(8, 1, 1).warp_tile(8, 2, 1).vector_sizes(2, 1, 2);
// One element (any C and K, e.g. 3-channel stems): 8x8 x 64, 1 channel x 8 pixels per thread, 512 threads.
constexpr auto v2 = direct.tile(8, 8, 64).warps(16, 1, 1).warp_tile(8, 1, 1).vector_sizes(1, 1, 1);
// 1-D: one output row of 64 pixels per block (16-byte vectors, and one element for any C and K).
constexpr auto v16_1d = direct_1d.tile(1, 64, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
constexpr auto v2_1d = direct_1d.tile(1, 64, 64).warps(16, 1, 1).warp_tile(8, 1, 1).vector_sizes(1, 1, 1);
}  // namespace

DECL_KERNEL_SET(conv_direct_fwd,
    targets(sm_80, sm_90),
    v16.dtype(fp16), v16.dtype(bf16), v16_wide.dtype(fp16), v16_wide.dtype(bf16), v16_c32.dtype(fp16),
    v16_c32.dtype(bf16), v16_c128.dtype(fp16), v16_c128.dtype(bf16), v4.dtype(fp16), v4.dtype(bf16), v2.dtype(fp16), v2.dtype(bf16),
    v16_1d.dtype(fp16), v16_1d.dtype(bf16), v2_1d.dtype(fp16), v2_1d.dtype(bf16));
