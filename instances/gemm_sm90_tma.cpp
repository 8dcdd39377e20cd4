// Hopper (sm_90a) kernels of the TMA + wgmma pipeline: the essential set for
// fp16 and bf16 in every layout it offers, tuned on an H100/H200:
//   128x256, two consumer warpgroups, 4 stages    large problems (compute bound)
//   128x128, two consumer warpgroups, 6 stages    medium problems, fewer idle SMs
//   128x192 (5 stages) / 64x192 (6 stages)        tile counts that fill the SMs better where
//                                                  128x256 leaves many idle (M = 512 with N = 4-5k;
//                                                  measured on the sweep's worst shapes, docs/perf/)
//   64x128 / 64x64, one consumer warpgroup        small M (memory bound: deep rings)
// plus the fused multi-D epilogues on the large tile, and 64-bit-offset variants
// of the large tile for matrices of 2^31 elements or more.
//
// Column-major C (rcc, rrc, crc, ccc) runs as C^T = B^T A^T on the row-major-C kernel of the
// same tile (rcr, ccr, crr, rrr: kernels/gemm/cuda/sm90/column_major_c.cuh); declared in the same
// translation unit, those keys add no device code of their own.
//
// Alignment: A and B go through TMA (16-byte aligned pointers, leading dimensions
// and batch strides); C and D through an epilogue that takes any alignment of
// their dtype. Problems whose A or B is aligned to less than 16 bytes run on the
// cp_async set (gemm_cp_async.cpp), which ships every width down to one element.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
// intrawave: the consumer warpgroups share each tile (the pingpong kernels, two consumers on
// alternate tiles, are in gemm_sm90_tma_pingpong_*.cpp).
constexpr auto tma = gemm().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave);
constexpr auto large = tma.tile(128, 256, 64).warps(8, 1, 1).warp_tile(16, 256, 16).stages(4);
constexpr auto medium = tma.tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6);
constexpr auto wide_n = tma.tile(128, 192, 64).warps(8, 1, 1).warp_tile(16, 192, 16).stages(5);
constexpr auto small_m_wide_n = tma.tile(64, 192, 64).warps(4, 1, 1).warp_tile(16, 192, 16).stages(6);
constexpr auto small_m = tma.tile(64, 128, 64).warps(4, 1, 1).warp_tile(16, 128, 16).stages(8);
constexpr auto tiny_m = tma.tile(64, 64, 64).warps(4, 1, 1).warp_tile(16, 64, 16).stages(12);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_fp16,
    targets(sm_90),
    large.dtype(fp16).layout(rcr), medium.dtype(fp16).layout(rcr),
    small_m.dtype(fp16).layout(rcr), tiny_m.dtype(fp16).layout(rcr),
    wide_n.dtype(fp16).layout(rcr), small_m_wide_n.dtype(fp16).layout(rcr),
    large.dtype(fp16).layout(rrr), medium.dtype(fp16).layout(rrr),
    small_m.dtype(fp16).layout(rrr), tiny_m.dtype(fp16).layout(rrr),
    wide_n.dtype(fp16).layout(rrr), small_m_wide_n.dtype(fp16).layout(rrr),
    large.dtype(fp16).layout(crr), medium.dtype(fp16).layout(crr),
    small_m.dtype(fp16).layout(crr), tiny_m.dtype(fp16).layout(crr),
    wide_n.dtype(fp16).layout(crr), small_m_wide_n.dtype(fp16).layout(crr),
    large.dtype(fp16).layout(ccr), medium.dtype(fp16).layout(ccr),
    small_m.dtype(fp16).layout(ccr), tiny_m.dtype(fp16).layout(ccr),
    wide_n.dtype(fp16).layout(ccr), small_m_wide_n.dtype(fp16).layout(ccr),
    large.dtype(fp16).layout(rcc), medium.dtype(fp16).layout(rcc),
    small_m.dtype(fp16).layout(rcc), tiny_m.dtype(fp16).layout(rcc),
    wide_n.dtype(fp16).layout(rcc), small_m_wide_n.dtype(fp16).layout(rcc),
    large.dtype(fp16).layout(rrc), medium.dtype(fp16).layout(rrc),
    small_m.dtype(fp16).layout(rrc), tiny_m.dtype(fp16).layout(rrc),
    wide_n.dtype(fp16).layout(rrc), small_m_wide_n.dtype(fp16).layout(rrc),
    large.dtype(fp16).layout(crc), medium.dtype(fp16).layout(crc),
    small_m.dtype(fp16).layout(crc), tiny_m.dtype(fp16).layout(crc),
    wide_n.dtype(fp16).layout(crc), small_m_wide_n.dtype(fp16).layout(crc),
    large.dtype(fp16).layout(ccc), medium.dtype(fp16).layout(ccc),
    small_m.dtype(fp16).layout(ccc), tiny_m.dtype(fp16).layout(ccc),
    wide_n.dtype(fp16).layout(ccc), small_m_wide_n.dtype(fp16).layout(ccc),
    large.dtypes(fp16, fp16, fp32).layout(rcr));

DECL_KERNEL_SET(gemm_sm90_tma_bf16,
    targets(sm_90),
    large.dtype(bf16).layout(rcr), medium.dtype(bf16).layout(rcr),
    small_m.dtype(bf16).layout(rcr), tiny_m.dtype(bf16).layout(rcr),
    wide_n.dtype(bf16).layout(rcr), small_m_wide_n.dtype(bf16).layout(rcr),
    large.dtype(bf16).layout(rrr), medium.dtype(bf16).layout(rrr),
    small_m.dtype(bf16).layout(rrr), tiny_m.dtype(bf16).layout(rrr),
    wide_n.dtype(bf16).layout(rrr), small_m_wide_n.dtype(bf16).layout(rrr),
    large.dtype(bf16).layout(crr), medium.dtype(bf16).layout(crr),
    small_m.dtype(bf16).layout(crr), tiny_m.dtype(bf16).layout(crr),
    wide_n.dtype(bf16).layout(crr), small_m_wide_n.dtype(bf16).layout(crr),
    large.dtype(bf16).layout(ccr), medium.dtype(bf16).layout(ccr),
    small_m.dtype(bf16).layout(ccr), tiny_m.dtype(bf16).layout(ccr),
    wide_n.dtype(bf16).layout(ccr), small_m_wide_n.dtype(bf16).layout(ccr),
    large.dtype(bf16).layout(rcc), medium.dtype(bf16).layout(rcc),
    small_m.dtype(bf16).layout(rcc), tiny_m.dtype(bf16).layout(rcc),
    wide_n.dtype(bf16).layout(rcc), small_m_wide_n.dtype(bf16).layout(rcc),
    large.dtype(bf16).layout(rrc), medium.dtype(bf16).layout(rrc),
    small_m.dtype(bf16).layout(rrc), tiny_m.dtype(bf16).layout(rrc),
    wide_n.dtype(bf16).layout(rrc), small_m_wide_n.dtype(bf16).layout(rrc),
    large.dtype(bf16).layout(crc), medium.dtype(bf16).layout(crc),
    small_m.dtype(bf16).layout(crc), tiny_m.dtype(bf16).layout(crc),
    wide_n.dtype(bf16).layout(crc), small_m_wide_n.dtype(bf16).layout(crc),
    large.dtype(bf16).layout(ccc), medium.dtype(bf16).layout(ccc),
    small_m.dtype(bf16).layout(ccc), tiny_m.dtype(bf16).layout(ccc),
    wide_n.dtype(bf16).layout(ccc), small_m_wide_n.dtype(bf16).layout(ccc),
    large.dtypes(bf16, bf16, fp32).layout(rcr));

DECL_KERNEL_SET(gemm_sm90_tma_multi_d,
    targets(sm_90),
    large.dtype(fp16).layout(rcr).multi_d(pass_through, 1),
    large.dtype(fp16).layout(rcr).multi_d(multi_d_add, 2),
    large.dtype(fp16).layout(rcr).multi_d(relu, 1),
    large.dtype(fp16).layout(rcr).multi_d(gelu, 1),
    large.dtype(fp16).layout(rcr).multi_d(sigmoid, 1),
    large.dtype(fp16).layout(rcr).multi_d(tanh_op, 1),
    large.dtype(bf16).layout(rcr).multi_d(pass_through, 1),
    large.dtype(bf16).layout(rcr).multi_d(multi_d_add, 2),
    large.dtype(bf16).layout(rcr).multi_d(relu, 1),
    large.dtype(bf16).layout(rcr).multi_d(gelu, 1),
    large.dtype(bf16).layout(rcr).multi_d(sigmoid, 1),
    large.dtype(bf16).layout(rcr).multi_d(tanh_op, 1));

// 64-bit offsets (index_bits 64): chosen only where some matrix holds 2^31 elements or more.
DECL_KERNEL_SET(gemm_sm90_tma_index64,
    targets(sm_90),
    large.dtype(fp16).layout(rcr).index64(), large.dtype(fp16).layout(rrr).index64(),
    large.dtype(fp16).layout(crr).index64(), large.dtype(fp16).layout(ccr).index64(),
    large.dtype(bf16).layout(rcr).index64(), large.dtype(bf16).layout(rrr).index64(),
    large.dtype(bf16).layout(crr).index64(), large.dtype(bf16).layout(ccr).index64(),
    large.dtypes(fp16, fp16, fp32).layout(rcr).index64(), large.dtypes(bf16, bf16, fp32).layout(rcr).index64());
