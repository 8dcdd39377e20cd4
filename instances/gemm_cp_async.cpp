// The cp.async + mma.sync pipeline (sm_80 family; also built for sm_90, where it
// serves what the TMA pipeline does not: tf32, exact fp32, int8, fp8,
// column-major C, A or B aligned to less than 16 bytes, pre-shuffled B).
//
// Alignment classes: vector_bytes binds A and B (pointers, leading dimensions and
// batch strides); C and D take any alignment of their dtype. Every signature
// shipped here comes with the widths down to its element size (2 bytes for
// fp16/bf16, 1 for int8/fp8; fp32 is never aligned to less than 4), so every
// alignment a problem can have finds a kernel: 16 (and 8 on rcr) through the wide
// tiles, 4 through cp.async on 64x64 tiles, 2 and 1 through register-staged loads
// (the 16-bit narrow widths and the 64-bit-offset kernels are in
// gemm_cp_async_narrow.cpp, a translation unit of its own so the two build in parallel).
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mma = gemm().pipeline(cp_async).epilogue(cshuffle);
// 16-bit inputs: 128x128x32 blocks of 2x2 warps, each warp a 64x64 tile.
constexpr auto h16 = mma.tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).stages(4);
constexpr auto h16_small = mma.tile(64, 64, 64).warps(2, 2, 1).warp_tile(32, 32, 16).stages(4);
// Narrow access widths need more copy instructions (4 bytes: cp.async; 2 bytes: loads
// staged through registers): on 128x128 tiles ptxas spills ~410 bytes at 4 bytes, so
// the narrow instances use 64x64 tiles (no spills).
constexpr auto h16_narrow = mma.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 16).stages(4);
constexpr auto tf32_narrow = mma.dtype(fp32).compute(tf32).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4);
constexpr auto tf32_tile = mma.dtype(fp32).compute(tf32).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8).stages(4);
constexpr auto fp32_exact = mma.dtype(fp32).tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
constexpr auto i8 = mma.dtypes(int8, int8, int32).tile(128, 128, 64).warps(2, 2, 1).warp_tile(64, 64, 32).stages(4);
// 8-bit inputs: 2x4 warps of 64x32 (64x64 warp tiles spill a few registers with fp8).
constexpr auto f8 = mma.tile(128, 128, 64).warps(2, 4, 1).warp_tile(64, 32, 32).stages(4);
// 8-bit inputs at narrow widths: 64x64x32 blocks (16 staged loads per thread and operand).
constexpr auto b8_narrow = mma.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 32).stages(4);
}  // namespace

DECL_KERNEL_SET(gemm_cp_async_16bit,
    targets(sm_80, sm_90),
    h16.dtype(fp16).layout(rcr), h16.dtype(fp16).layout(rrr), h16.dtype(fp16).layout(crr), h16.dtype(fp16).layout(ccr),
    h16.dtype(bf16).layout(rcr), h16.dtype(bf16).layout(rrr), h16.dtype(bf16).layout(crr), h16.dtype(bf16).layout(ccr),
    h16_small.dtype(fp16).layout(rcr), h16_small.dtype(bf16).layout(rcr),
    h16.dtype(fp16).layout(rcc), h16.dtypes(fp16, fp16, fp32).layout(rcr), h16.dtypes(bf16, bf16, fp32).layout(rcr),
    // Narrower access widths serve pointers and leading dimensions aligned to 8 or 4 bytes only.
    h16.dtype(fp16).layout(rcr).vector_bytes(8), h16_narrow.dtype(fp16).layout(rcr).vector_bytes(4),
    h16.dtype(bf16).layout(rcr).vector_bytes(8), h16_narrow.dtype(bf16).layout(rcr).vector_bytes(4),
    h16.dtype(fp16).layout(rcr).variant(preshuffle), h16.dtype(bf16).layout(rcr).variant(preshuffle));

// Column-major C (cuBLAS's own layout) in every operand layout, 16-bit and fp32: the widest
// width here, 4 and 2 bytes in gemm_cp_async_narrow.cpp (fp16 rcc is in the set above).
DECL_KERNEL_SET(gemm_cp_async_column_major_c,
    targets(sm_80, sm_90),
    h16.dtype(fp16).layout(rrc), h16.dtype(fp16).layout(crc), h16.dtype(fp16).layout(ccc),
    h16.dtype(bf16).layout(rcc), h16.dtype(bf16).layout(rrc), h16.dtype(bf16).layout(crc), h16.dtype(bf16).layout(ccc),
    tf32_tile.layout(rcc), tf32_tile.layout(rrc), tf32_tile.layout(crc), tf32_tile.layout(ccc),
    fp32_exact.layout(rcc), fp32_exact.layout(rrc), fp32_exact.layout(crc), fp32_exact.layout(ccc),
    tf32_narrow.layout(rcc).vector_bytes(4), tf32_narrow.layout(rrc).vector_bytes(4),
    tf32_narrow.layout(crc).vector_bytes(4), tf32_narrow.layout(ccc).vector_bytes(4),
    fp32_exact.layout(rcc).vector_bytes(4), fp32_exact.layout(rrc).vector_bytes(4),
    fp32_exact.layout(crc).vector_bytes(4), fp32_exact.layout(ccc).vector_bytes(4));

DECL_KERNEL_SET(gemm_cp_async_32bit,
    targets(sm_80, sm_90),
    tf32_tile.layout(rcr), tf32_tile.layout(rrr), tf32_tile.layout(crr), tf32_tile.layout(ccr),
    fp32_exact.layout(rcr), fp32_exact.layout(rrr), fp32_exact.layout(crr), fp32_exact.layout(ccr),
    // 4 bytes is one fp32 element: these take any alignment fp32 data can have.
    tf32_narrow.layout(rcr).vector_bytes(4), tf32_narrow.layout(rrr).vector_bytes(4),
    tf32_narrow.layout(crr).vector_bytes(4), tf32_narrow.layout(ccr).vector_bytes(4),
    fp32_exact.layout(rcr).vector_bytes(4), fp32_exact.layout(rrr).vector_bytes(4),
    fp32_exact.layout(crr).vector_bytes(4), fp32_exact.layout(ccr).vector_bytes(4));

DECL_KERNEL_SET(gemm_cp_async_8bit,
    targets(sm_80, sm_90),
    i8.layout(rcr), b8_narrow.dtypes(int8, int8, int32).layout(rcr).vector_bytes(4),
    b8_narrow.dtypes(int8, int8, int32).layout(rcr).vector_bytes(1));

DECL_KERNEL_SET(gemm_cp_async_fp8,
    targets(sm_90),
    f8.dtypes(fp8, fp8, bf16).layout(rcr), f8.dtypes(fp8, fp8, fp32).layout(rcr),
    f8.dtypes(bf8, bf8, bf16).layout(rcr), f8.dtypes(fp8, bf8, bf16).layout(rcr),
    b8_narrow.dtypes(fp8, fp8, bf16).layout(rcr).vector_bytes(1), b8_narrow.dtypes(fp8, fp8, fp32).layout(rcr).vector_bytes(1),
    b8_narrow.dtypes(bf8, bf8, bf16).layout(rcr).vector_bytes(1), b8_narrow.dtypes(fp8, bf8, bf16).layout(rcr).vector_bytes(1));
