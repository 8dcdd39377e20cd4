// Hopper (sm_90a) block-scaled fp8 GEMMs (DeepGEMM's form): e4m3/e5m2 A and B with a float
// scale per 1 x 128 block of A (per row and 128 of K) and per 128 x 128 block of B, on the
// TMA + wgmma pipeline (gemm/cuda/sm90/block_scaled_mainloop.cuh: each 128-deep k-block's
// wgmma into one of two partial-sum sets, scaled into the tile's on the CUDA cores). The sets
// limit the tile a consumer warpgroup can hold to 64 x 128.
//   128x128, two consumer warpgroups, 6 stages   large problems (each warpgroup's promotion
//                                                runs under the other's wgmma)
//   64x128, two consumers in pingpong, 8 stages  medium problems, one tile per consumer
//   64x64, one consumer warpgroup, 12 stages      small M (memory bound: deep rings)
// (A one-consumer 64x128 tile was shipped until 2026-12-05: with two partial sets it spills and was
// never the fastest on the shapes of docs/perf/h100-2026-12-05-block-scaled-overlap/.)
// Problems whose fp8 rows or bases are not 16-byte aligned go to gemm_cp_async_block_scaled.cpp.
// GPU tests and compute-sanitizer passed on an H100 (docs/perf/h100-2026-12-05-unverified-sets/,
// and with two partial sets docs/perf/h100-2026-12-05-block-scaled-overlap/).
#include "kdecl/declare/gemm.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto scaled = gemm().pipeline(tma_wgmma).epilogue(cshuffle).layout(rcr).variant(block_scaled);
constexpr auto medium = scaled.scheduler(intrawave).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6);
constexpr auto pingpong_64 = scaled.scheduler(pingpong).tile(64, 128, 128).warps(4, 1, 1).warp_tile(16, 128, 32).stages(8);
constexpr auto tiny_m = scaled.scheduler(intrawave).tile(64, 64, 128).warps(4, 1, 1).warp_tile(16, 64, 32).stages(12);
}  // namespace

DECL_KERNEL_SET(gemm_sm90_tma_block_scaled,
    targets(sm_90),
    medium.dtypes(fp8, fp8, bf16), pingpong_64.dtypes(fp8, fp8, bf16),
    tiny_m.dtypes(fp8, fp8, bf16),
    medium.dtypes(fp8, fp8, fp32), medium.dtypes(fp8, fp8, fp16));
