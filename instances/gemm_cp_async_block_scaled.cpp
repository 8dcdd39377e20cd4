// Block-scaled fp8 GEMMs (1 x 128 A scales, 128 x 128 B scales; docs/kernels/block_scaled.md) on
// the cp.async + mma.sync pipeline: the problems the TMA kernels of gemm_sm90_tma_block_scaled.cpp
// cannot load, whose fp8 rows, bases or batch strides are not 16-byte multiples (K = 1000, say).
// Their loads take every alignment an fp8 tensor can have:
//   8 bytes  128x64x64 blocks of 4x2 warps (cp.async, 8-byte copies; 64x32 warp tiles spill with
//            the second set of sums)
//   4 bytes  64x64x32 blocks of 2x2 warps (cp.async, 4-byte copies)
//   1 byte   64x64x32 blocks, loads staged through registers
// Each 128-deep scale block is two or four k tiles, summed in the accumulators and scaled out
// after the last (gemm/cuda/sm80/block_scales.cuh). GPU tests (random misaligned problems included)
// and compute-sanitizer passed on an H100 (docs/perf/h100-2026-12-05-unverified-sets/).
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto scaled = gemm().pipeline(cp_async).epilogue(cshuffle).layout(rcr).variant(block_scaled);
constexpr auto wide = scaled.tile(128, 64, 64).warps(4, 2, 1).warp_tile(32, 32, 32).stages(4).vector_bytes(8);
constexpr auto narrow = scaled.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 32).stages(4);
}  // namespace

DECL_KERNEL_SET(gemm_cp_async_block_scaled,
    targets(sm_90),
    wide.dtypes(fp8, fp8, bf16), wide.dtypes(fp8, fp8, fp32), wide.dtypes(fp8, fp8, fp16),
    narrow.dtypes(fp8, fp8, bf16).vector_bytes(4), narrow.dtypes(fp8, fp8, fp32).vector_bytes(4),
    narrow.dtypes(fp8, fp8, fp16).vector_bytes(4),
    narrow.dtypes(fp8, fp8, bf16).vector_bytes(1), narrow.dtypes(fp8, fp8, fp32).vector_bytes(1),
    narrow.dtypes(fp8, fp8, fp16).vector_bytes(1));
