// Hopper (sm_90a) TMA + wgmma kernels for the operand types whose K step is 32
// bytes: fp8 (e4m3) and bf8 (e5m2) in any mix, int8 (int32 accumulate), and fp32
// data multiplied in tf32. wgmma reads these operands only K-major, so layout
// rcr (A row-major, B column-major: cuBLASLt's "TN") alone; the tables refuse
// the others. tile_k fills one 128-byte swizzled row: 128 for 8-bit, 32 for tf32.
// The same tile shapes as the 16-bit set (gemm_sm90_tma.cpp):
//   128x256, two consumer warpgroups, 4 stages    large problems (4096^3, 8192^3)
//   128x128, two consumer warpgroups, 6 stages    medium problems, fewer idle SMs
//   64x128 / 64x64, one consumer warpgroup        small M (memory bound: deep rings)
// fp8 per-tensor scales fold into alpha (alpha = scale_a * scale_b / scale_c).
//
// Shipped are the signatures the cp_async sets (gemm_cp_async.cpp) also serve at
// every narrower alignment of A and B, which TMA cannot load: fp8 -> bf16 / fp32,
// e5m2 -> bf16, e4m3 x e5m2 -> bf16, int8 -> int32, tf32. The kernel also takes fp16
// and fp8 output, e5m2 x e4m3 and int8 output (tests/gpu/gemm_sm90_lowp_test.cu runs
// them); a set declaring them would leave their misaligned problems without a kernel.
//
// tests/gpu/gemm_sm90_lowp_test.cu passed on an H100 on 2026-11-23 (docs/kernels/sm90.md).
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto tma = gemm().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).layout(rcr);
constexpr auto large8 = tma.tile(128, 256, 128).warps(8, 1, 1).warp_tile(16, 256, 32).stages(4);
constexpr auto medium8 = tma.tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6);
constexpr auto small_m8 = tma.tile(64, 128, 128).warps(4, 1, 1).warp_tile(16, 128, 32).stages(8);
constexpr auto tiny_m8 = tma.tile(64, 64, 128).warps(4, 1, 1).warp_tile(16, 64, 32).stages(12);
constexpr auto large_tf32 = tma.tile(128, 256, 32).warps(8, 1, 1).warp_tile(16, 256, 8).stages(4);
constexpr auto medium_tf32 = tma.tile(128, 128, 32).warps(8, 1, 1).warp_tile(16, 128, 8).stages(6);
constexpr auto small_m_tf32 = tma.tile(64, 128, 32).warps(4, 1, 1).warp_tile(16, 128, 8).stages(8);
constexpr auto tiny_m_tf32 = tma.tile(64, 64, 32).warps(4, 1, 1).warp_tile(16, 64, 8).stages(12);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_fp8,
    targets(sm_90),
    large8.dtypes(fp8, fp8, bf16), medium8.dtypes(fp8, fp8, bf16),
    small_m8.dtypes(fp8, fp8, bf16), tiny_m8.dtypes(fp8, fp8, bf16),
    large8.dtypes(fp8, fp8, fp32), large8.dtypes(bf8, bf8, bf16), large8.dtypes(fp8, bf8, bf16));

DECL_KERNEL_SET(gemm_sm90_tma_int8,
    targets(sm_90),
    large8.dtypes(int8, int8, int32), medium8.dtypes(int8, int8, int32),
    small_m8.dtypes(int8, int8, int32), tiny_m8.dtypes(int8, int8, int32));

DECL_KERNEL_SET(gemm_sm90_tma_tf32,
    targets(sm_90),
    large_tf32.dtype(fp32).compute(tf32), medium_tf32.dtype(fp32).compute(tf32),
    small_m_tf32.dtype(fp32).compute(tf32), tiny_m_tf32.dtype(fp32).compute(tf32));
