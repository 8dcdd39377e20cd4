// fp32 forward convolutions on the cp.async pipeline (sm_80 family; also built
// for sm_90): the forward implicit GEMM of conv_cp_async.cpp with fp32 data,
// multiplied in tf32 on mma.sync (what cuDNN does by default where the caller
// allows it: .compute(tf32)) or exactly on FFMA (the GEMM's SIMT warp).
//   16-byte vectors   C/G and K/G multiples of 4, 16-byte aligned tensors
//   4-byte vectors    any channel count, stride and alignment fp32 data has
// Every rank, channels-last. Tests: tests/gpu/conv_gpu_test.cpp against the host
// reference with the operands rounded to tf32 (host kernels of the same signature).
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto conv = grouped_conv().direction(fwd).pipeline(cp_async).epilogue(cshuffle).dtype(fp32);
// tf32: 128x128x16 blocks of 2x2 warps (64x64 warp tiles, 8-deep mma.sync k steps).
constexpr auto tf32_wide = conv.compute(tf32).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8).stages(4);
constexpr auto tf32_any = conv.compute(tf32).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4)
                              .vector_sizes(1, 1, 1);
// tf32 with 128-byte k rows (half the ring barriers): 8 warps on 128x128, 4 on 128x64 (K/G = 64) and 64x64.
constexpr auto tf32_deep = conv.compute(tf32).tile(128, 128, 32).warps(2, 4, 1).warp_tile(64, 32, 8).stages(3);
constexpr auto tf32_n64 = conv.compute(tf32).tile(128, 64, 32).warps(2, 2, 1).warp_tile(64, 32, 8).stages(4);
constexpr auto tf32_small = conv.compute(tf32).tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4);
// Exact fp32: 128x128x8 blocks of 2x4 warps, each lane a 16x4 FFMA micro-tile.
constexpr auto exact = conv.tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
constexpr auto exact_any = exact.vector_sizes(1, 1, 1);
constexpr auto exact_k16 = conv.tile(128, 128, 16).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fp32_fwd,
    targets(sm_80, sm_90),
    tf32_wide.ndim(1).layout(nwgc), tf32_wide.ndim(2).layout(nhwgc), tf32_wide.ndim(3).layout(ndhwgc),
    tf32_any.ndim(1).layout(nwgc), tf32_any.ndim(2).layout(nhwgc), tf32_any.ndim(3).layout(ndhwgc),
    tf32_deep.ndim(2).layout(nhwgc), tf32_n64.ndim(2).layout(nhwgc), tf32_small.ndim(2).layout(nhwgc),
    exact.ndim(2).layout(nhwgc), exact_k16.ndim(2).layout(nhwgc),
    exact_any.ndim(1).layout(nwgc), exact_any.ndim(2).layout(nhwgc), exact_any.ndim(3).layout(ndhwgc));
