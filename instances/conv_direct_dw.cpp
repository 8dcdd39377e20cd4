// Direct depthwise forward convolutions (pipeline direct_conv,
// kernels/conv/cuda/direct/direct_fwd.cuh direct_dw_fwd_kernel): blocks shaped for
// the depthwise path, which stages only the taps and slides each thread's window of
// 16-byte channel vectors along W straight from global memory. More pixels per
// thread than conv_direct_fwd's shapes (fewer input loads and conversions per output:
// (pixels - 1) x stride + filter columns per `pixels` outputs and filter row), and
// 16-channel blocks for layers whose C is a multiple of 16 but not of 32 or 64
// (144, 240, 480, 672, 1152: no idle lanes in the last block). They also take
// grouped layers and stems (direct_fwd_kernel) where the dispatcher ranks them first.
// Built for sm_80 and sm_90, 2-D NHWGC, 16-bit data.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto dw = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(direct_conv).vector_sizes(8, 1, 8);
// 4 pixels per thread (3x3 and 5x5 filters):
//   4x32 pixels x 32 channels, 128 threads; 8x32 x 16 channels, 128 threads; 8x8 x 64 channels, 128
//   threads (small images: 14x14 and 7x7 outputs waste fewer threads past the right edge).
constexpr auto p4_c32 = dw.tile(4, 32, 32).warps(4, 1, 1).warp_tile(4, 8, 1);
constexpr auto p4_c16 = dw.tile(8, 32, 16).warps(4, 1, 1).warp_tile(4, 8, 1);
constexpr auto p4_small = dw.tile(8, 8, 64).warps(4, 1, 1).warp_tile(4, 8, 1);
// 8 pixels per thread (7x7 filters: 14 columns loaded per 8 outputs and filter row):
//   8x32 x 32 channels, 128 threads; 8x64 x 16 channels, 128 threads; 8x32 x 64 channels, 256
//   threads (8 lanes: a warp's 16-byte loads cover whole 128-byte lines of 4 pixels).
constexpr auto p8_c32 = dw.tile(8, 32, 32).warps(4, 1, 1).warp_tile(8, 8, 1);
constexpr auto p8_c16 = dw.tile(8, 64, 16).warps(4, 1, 1).warp_tile(8, 8, 1);
constexpr auto p8_c64 = dw.tile(8, 32, 64).warps(8, 1, 1).warp_tile(8, 8, 1);
}  // namespace

DECL_KERNEL_SET(conv_direct_dw_fwd,
    targets(sm_80, sm_90),
    p4_c32.dtype(fp16), p4_c32.dtype(bf16), p4_c16.dtype(fp16), p4_c16.dtype(bf16), p4_small.dtype(fp16),
    p4_small.dtype(bf16), p8_c32.dtype(fp16), p8_c32.dtype(bf16), p8_c16.dtype(fp16), p8_c16.dtype(bf16),
    p8_c64.dtype(fp16), p8_c64.dtype(bf16));
