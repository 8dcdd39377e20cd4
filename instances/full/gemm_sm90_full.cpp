// The full sm_90 sets, for tuning (configure with -DKDECL_FULL_SETS=ON): every
// tile, warp layout, warp tile and stage count the TMA + wgmma pipeline offers
// for bf16 and fp16 rcr with a 64-deep k tile and the staged epilogue (87 each),
// and the cp.async pipeline's 2x2-warp layouts with 64x64 warp tiles.
// `kdecl bench gemm --top 0` times every one of them against cuBLAS.
// Kernels the essential sets also declare register once (an overlap, not an error).
// (`any` is qualified: nvcc finds another `any` beside kdecl::dsl's in this TU.)
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto tma_sweep = gemm().layout(rcr).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                               .tile(kdecl::dsl::any, kdecl::dsl::any, 64).warps(kdecl::dsl::any).warp_tile(kdecl::dsl::any).stages(kdecl::dsl::any);
constexpr auto mma_sweep = gemm().layout(rcr).pipeline(cp_async).epilogue(cshuffle)
                               .tile(kdecl::dsl::any, kdecl::dsl::any, 32).warps(2, 2, 1).warp_tile(64, 64, 16).stages(kdecl::dsl::any);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_full_tma,
    targets(sm_90),
    tma_sweep.dtype(bf16), tma_sweep.dtype(fp16));

DECL_KERNEL_SET(gemm_sm90_full_cp_async,
    targets(sm_90),
    mma_sweep.dtype(bf16), mma_sweep.dtype(fp16));
