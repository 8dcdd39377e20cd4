// The cp_async kernels for 16-bit data aligned to less than 8 bytes, and the
// 64-bit-offset kernels (see gemm_cp_async.cpp for the wide widths and the other
// dtypes). Together with those, every 16-bit signature the shipped sets offer has a
// kernel for every alignment class: 4 bytes through cp.async, 2 bytes (one element)
// through register-staged loads, on 64x64 tiles.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mma = gemm().pipeline(cp_async).epilogue(cshuffle);
constexpr auto h16 = mma.tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).stages(4);
// Narrow access widths need more copy instructions (4 bytes: cp.async; 2 bytes: loads
// staged through registers): the narrow instances use 64x64 tiles (no spills).
constexpr auto h16_narrow = mma.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 16).stages(4);
constexpr auto h16_v4 = h16_narrow.vector_bytes(4);
constexpr auto h16_v2 = h16_narrow.vector_bytes(2);
}  // namespace

// The remaining alignment classes of every 16-bit signature above: 4 bytes (cp.async)
// and 2 bytes (one element: register-staged loads).
DECL_KERNEL_SET(gemm_cp_async_16bit_narrow,
    targets(sm_80, sm_90),
    h16_v2.dtype(fp16).layout(rcr), h16_v2.dtype(bf16).layout(rcr),
    h16_v4.dtype(fp16).layout(rrr), h16_v2.dtype(fp16).layout(rrr),
    h16_v4.dtype(fp16).layout(crr), h16_v2.dtype(fp16).layout(crr),
    h16_v4.dtype(fp16).layout(ccr), h16_v2.dtype(fp16).layout(ccr),
    h16_v4.dtype(bf16).layout(rrr), h16_v2.dtype(bf16).layout(rrr),
    h16_v4.dtype(bf16).layout(crr), h16_v2.dtype(bf16).layout(crr),
    h16_v4.dtype(bf16).layout(ccr), h16_v2.dtype(bf16).layout(ccr),
    h16_v4.dtype(fp16).layout(rcc), h16_v2.dtype(fp16).layout(rcc),
    // column-major C in the other layouts (the 16-byte width: gemm_cp_async.cpp)
    h16_v4.dtype(fp16).layout(rrc), h16_v2.dtype(fp16).layout(rrc), h16_v4.dtype(fp16).layout(crc),
    h16_v2.dtype(fp16).layout(crc), h16_v4.dtype(fp16).layout(ccc), h16_v2.dtype(fp16).layout(ccc),
    h16_v4.dtype(bf16).layout(rcc), h16_v2.dtype(bf16).layout(rcc), h16_v4.dtype(bf16).layout(rrc),
    h16_v2.dtype(bf16).layout(rrc), h16_v4.dtype(bf16).layout(crc), h16_v2.dtype(bf16).layout(crc),
    h16_v4.dtype(bf16).layout(ccc), h16_v2.dtype(bf16).layout(ccc),
    h16_v4.dtypes(fp16, fp16, fp32).layout(rcr), h16_v2.dtypes(fp16, fp16, fp32).layout(rcr),
    h16_v4.dtypes(bf16, bf16, fp32).layout(rcr), h16_v2.dtypes(bf16, bf16, fp32).layout(rcr),
    // Pre-shuffled B is one 16-byte aligned image; these widths are A's.
    h16_v4.dtype(fp16).layout(rcr).variant(preshuffle), h16_v2.dtype(fp16).layout(rcr).variant(preshuffle),
    h16_v4.dtype(bf16).layout(rcr).variant(preshuffle), h16_v2.dtype(bf16).layout(rcr).variant(preshuffle));

// The fused multi-D epilogues of the sm_90 TMA set (gemm_sm90_tma.cpp), for A or B
// aligned to less than 16 bytes (TMA's rule): one-element width, any alignment.
DECL_KERNEL_SET(gemm_cp_async_multi_d_narrow,
    targets(sm_90),
    h16_v2.dtype(fp16).layout(rcr).multi_d(pass_through, 1), h16_v2.dtype(fp16).layout(rcr).multi_d(multi_d_add, 2),
    h16_v2.dtype(fp16).layout(rcr).multi_d(relu, 1), h16_v2.dtype(fp16).layout(rcr).multi_d(gelu, 1),
    h16_v2.dtype(fp16).layout(rcr).multi_d(sigmoid, 1), h16_v2.dtype(fp16).layout(rcr).multi_d(tanh_op, 1),
    h16_v2.dtype(bf16).layout(rcr).multi_d(pass_through, 1), h16_v2.dtype(bf16).layout(rcr).multi_d(multi_d_add, 2),
    h16_v2.dtype(bf16).layout(rcr).multi_d(relu, 1), h16_v2.dtype(bf16).layout(rcr).multi_d(gelu, 1),
    h16_v2.dtype(bf16).layout(rcr).multi_d(sigmoid, 1), h16_v2.dtype(bf16).layout(rcr).multi_d(tanh_op, 1));

// 64-bit offsets (index_bits 64) for matrices of 2^31 elements or more: the 16-bit
// signatures in every layout (on sm_90 the TMA set has the aligned ones), plus the
// one-element width so that such a problem is never refused for its alignment either.
DECL_KERNEL_SET(gemm_cp_async_index64,
    targets(sm_80),
    h16.dtype(fp16).layout(rcr).index64(), h16.dtype(fp16).layout(rrr).index64(),
    h16.dtype(fp16).layout(crr).index64(), h16.dtype(fp16).layout(ccr).index64(),
    h16.dtype(bf16).layout(rcr).index64(), h16.dtype(bf16).layout(rrr).index64(),
    h16.dtype(bf16).layout(crr).index64(), h16.dtype(bf16).layout(ccr).index64());

DECL_KERNEL_SET(gemm_cp_async_index64_narrow,
    targets(sm_80, sm_90),
    h16_v2.dtype(fp16).layout(rcr).index64(), h16_v2.dtype(fp16).layout(rrr).index64(),
    h16_v2.dtype(fp16).layout(crr).index64(), h16_v2.dtype(fp16).layout(ccr).index64(),
    h16_v2.dtype(bf16).layout(rcr).index64(), h16_v2.dtype(bf16).layout(rrr).index64(),
    h16_v2.dtype(bf16).layout(crr).index64(), h16_v2.dtype(bf16).layout(ccr).index64());
