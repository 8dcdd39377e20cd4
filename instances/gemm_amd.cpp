// AMD CDNA kernels (HIP, MFMA): the essential set for gfx90a (MI200) and gfx942
// (MI300). Compiled by hipcc for gfx90a and gfx940 code objects and linked;
// never run (no AMD GPU is available to this project): see docs/kernels/hip.md.
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto mfma = gemm().warps(2, 2, 1).epilogue(cshuffle);
constexpr auto compute = mfma.pipeline(compv4).tile(128, 128, 32).warp_tile(32, 32, 16);
constexpr auto memory = mfma.pipeline(mem).tile(64, 64, 32).warp_tile(16, 16, 16);
constexpr auto f32 = mfma.pipeline(compv3).dtype(fp32).tile(64, 64, 16).warp_tile(16, 16, 4);
constexpr auto i8 = mfma.pipeline(compv3).dtypes(int8, int8, int32).tile(128, 128, 64).warp_tile(32, 32, 16);
}  // namespace

DECL_KERNEL_SET(gemm_cdna_16bit,
    targets(gfx90a, gfx942),
    compute.dtype(fp16).layout(rcr), compute.dtype(fp16).layout(rrr),
    compute.dtype(fp16).layout(crr), compute.dtype(fp16).layout(ccr),
    compute.dtype(bf16).layout(rcr), compute.dtype(bf16).layout(rrr),
    compute.dtype(bf16).layout(crr), compute.dtype(bf16).layout(ccr),
    memory.dtype(fp16).layout(rcr), memory.dtype(bf16).layout(rcr),
    compute.dtype(fp16).layout(rcr).multi_d(gelu, 1), compute.dtype(bf16).layout(rcr).multi_d(gelu, 1),
    compute.dtype(fp16).layout(rcr).multi_d(relu, 1), compute.dtype(fp16).layout(rcr).multi_d(multi_d_add, 2));

DECL_KERNEL_SET(gemm_cdna_other,
    targets(gfx90a, gfx942),
    f32.layout(rcr), f32.layout(crr), i8.layout(rcr));

DECL_KERNEL_SET(gemm_cdna3_fp8,
    targets(gfx942),
    compute.dtypes(fp8, fp8, bf16).layout(rcr).tile(128, 128, 64).warp_tile(32, 32, 32),
    compute.dtypes(bf8, bf8, bf16).layout(rcr).tile(128, 128, 64).warp_tile(32, 32, 32));
