// The gemv pipeline (decode-sized GEMMs on CUDA cores or mma.sync, kernels/gemm/cuda/gemv/): what
// the NVIDIA tables accept, the diagnostics of what they refuse, and where the analytical model
// ranks it against the tma_wgmma tiles (ahead at M = 1 on a memory-bound shape, behind once M is
// a tensor-core tile's worth) and its own configurations against each other.
#include <gtest/gtest.h>

#include <string>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"

namespace kdecl {
namespace {

gemm_key gemv_key(int tile_m, int tile_n, int tile_k, int warps_k, dtype d = dtype::bf16, gemm_layout l = rcr) {
  gemm_key k;
  k.sig.a = k.sig.b = k.sig.c = k.sig.compute = d;
  k.sig.acc = dtype::fp32;
  k.sig.lay = l;
  k.algo.pipe = pipeline::gemv;
  k.algo.tile = {tile_m, tile_n, tile_k};
  k.algo.warps = {1, 1, warps_k};
  k.algo.warp_tile = {1, 1, 256};
  k.algo.stages = 1;
  k.algo.epi = epilogue::direct;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_bytes = 16;
  k.algo.arch = arch_id::sm_90;
  return k;
}

// The mma.sync form: warp tile (16, 8, 32).
gemm_key gemv_mma_key(int tile_m, int tile_n, int tile_k, int warps_k, dtype d = dtype::bf16) {
  gemm_key k = gemv_key(tile_m, tile_n, tile_k, warps_k, d);
  k.algo.warp_tile = {16, 8, 32};
  return k;
}

gemm_key tma_key(int tile_m, int tile_n, int stages) {
  gemm_key k;
  k.sig.a = k.sig.b = k.sig.c = k.sig.compute = dtype::bf16;
  k.sig.acc = dtype::fp32;
  k.algo.pipe = pipeline::tma_wgmma;
  k.algo.tile = {tile_m, tile_n, 64};
  k.algo.warps = {tile_m / 16, 1, 1};
  k.algo.warp_tile = {16, tile_n, 16};
  k.algo.stages = stages;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_bytes = 16;
  k.algo.arch = arch_id::sm_90;
  return k;
}

std::string explain(const gemm_key& k, arch_id a) { return std::string(dsl::describe(dsl::validate(k, a)).view()); }

TEST(GemvRules, TheShippedShapesValidateOnEveryNvidiaTarget) {
  for (arch_id a : {arch_id::sm_80, arch_id::sm_86, arch_id::sm_89, arch_id::sm_90}) {
    EXPECT_TRUE(dsl::validate(gemv_key(1, 2, 2048, 4), a).ok()) << explain(gemv_key(1, 2, 2048, 4), a);
    EXPECT_TRUE(dsl::validate(gemv_key(1, 1, 8192, 8), a).ok());
    EXPECT_TRUE(dsl::validate(gemv_key(8, 8, 1024, 4, dtype::fp16, rcc), a).ok());
    for (const gemm_key& k : {gemv_mma_key(16, 8, 512, 4), gemv_mma_key(16, 8, 1024, 8), gemv_mma_key(16, 16, 512, 4),
                              gemv_mma_key(16, 16, 1024, 8), gemv_mma_key(16, 32, 256, 4, dtype::fp16)})
      EXPECT_TRUE(dsl::validate(k, a).ok()) << explain(k, a);
  }
  EXPECT_FALSE(dsl::validate(gemv_key(1, 2, 2048, 4), arch_id::gfx942).ok());  // NVIDIA only
}

TEST(GemvRules, RefusalsNameTheRule) {
  // (1 + 4) rows and columns x 4 chunks = 20 16-byte chunks in registers per lane: over 16.
  const auto d = dsl::validate(gemv_key(1, 4, 4096, 4), arch_id::sm_90);
  EXPECT_EQ(d.r, dsl::rule::gemv_chunks_in_flight_exceed_register_cap);
  EXPECT_NE(explain(gemv_key(1, 4, 4096, 4), arch_id::sm_90).find("20 16-byte chunks in registers, over 16"),
            std::string::npos)
      << explain(gemv_key(1, 4, 4096, 4), arch_id::sm_90);
  // Sixteen rows of A on CUDA cores hold 17 chunks a lane (the mma.sync warp tile's job).
  EXPECT_EQ(dsl::validate(gemv_key(16, 1, 1024, 4), arch_id::sm_90).r, dsl::rule::gemv_chunks_in_flight_exceed_register_cap);
  // mma.sync: 16 rows exactly, 8-column groups, no more than 32 columns, the same register cap
  // ((16 + 16) rows and columns x 1024 / (4 x 256) chunks = 32).
  EXPECT_EQ(dsl::validate(gemv_mma_key(8, 8, 512, 4), arch_id::sm_90).r,
            dsl::rule::tile_m_not_multiple_of_warps_m_x_warp_tile_m);
  EXPECT_EQ(dsl::validate(gemv_mma_key(16, 4, 512, 4), arch_id::sm_90).r,
            dsl::rule::tile_n_not_multiple_of_warps_n_x_warp_tile_n);
  EXPECT_EQ(dsl::validate(gemv_mma_key(32, 8, 512, 4), arch_id::sm_90).r, dsl::rule::tile_above_maximum_for_pipeline);
  EXPECT_EQ(dsl::validate(gemv_mma_key(16, 64, 256, 4), arch_id::sm_90).r, dsl::rule::tile_above_maximum_for_pipeline);
  EXPECT_EQ(dsl::validate(gemv_mma_key(16, 16, 1024, 4), arch_id::sm_90).r,
            dsl::rule::gemv_chunks_in_flight_exceed_register_cap);
  // B must be contiguous along K (a linear layer's weights), A too.
  EXPECT_EQ(dsl::validate(gemv_key(1, 2, 2048, 4, dtype::bf16, rrr), arch_id::sm_90).r,
            dsl::rule::layout_not_offered_for_dtype);
  // tile.k is whole warp steps of every warp.
  EXPECT_EQ(dsl::validate(gemv_key(1, 2, 1536, 4), arch_id::sm_90).r,
            dsl::rule::tile_k_not_multiple_of_warps_k_x_warp_tile_k);
  gemm_key fp32 = gemv_key(1, 2, 2048, 4, dtype::fp32);
  EXPECT_EQ(dsl::validate(fp32, arch_id::sm_90).r, dsl::rule::dtype_combination_not_offered_by_pipeline);
}

gemm_problem decode(std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemm_problem{}.sizes(m, n, k).dtype(dtype::bf16).layout(rcr).compute(dtype::bf16).normalized();
}

TEST(GemvModel, AheadOfTensorCoreTilesAtOneRowBehindAtSixtyFour) {
  const gemm_key stream = gemv_key(1, 2, 2048, 4);
  const gemm_key wide_stream = gemv_key(8, 8, 1024, 4);
  const gemm_key tile = tma_key(64, 128, 8);
  const double at1_stream = estimate_microseconds(stream, decode(1, 8192, 8192));
  const double at1_tile = estimate_microseconds(tile, decode(1, 8192, 8192));
  EXPECT_LT(at1_stream, at1_tile);
  // 134 MB at the model's 86% of 3350 GB/s is about 47 us: the estimate is the memory's.
  EXPECT_GT(at1_stream, 40.0);
  EXPECT_LT(at1_stream, 60.0);
  // At M = 64 (not a gemv problem: M > tile.m, refused per problem by the kernel) the 8-row
  // stream would redo its B traffic eight times; the model prices it accordingly.
  const double at64_stream = estimate_microseconds(wide_stream, decode(64, 8192, 8192));
  const double at64_tile = estimate_microseconds(tile, decode(64, 8192, 8192));
  EXPECT_GT(at64_stream, at64_tile);
}

TEST(GemvModel, MoreColumnsABlockRankAhead) {
  // Measured on an H200 over the models' decode layers at M = 1 (docs/perf/h200-2026-12-06-gemv/): one
  // column a block ran at 0.74 of the best gemv kernel (its lanes load as much A as B), 2 at 0.96, 4 at 0.98.
  const auto at1 = [](const gemm_key& k) { return estimate_microseconds(k, decode(1, 8192, 8192)); };
  EXPECT_LT(at1(gemv_key(1, 4, 2048, 4)), at1(gemv_key(1, 2, 2048, 4)));
  EXPECT_LT(at1(gemv_key(1, 2, 2048, 4)), at1(gemv_key(1, 1, 8192, 8)));
}

}  // namespace
}  // namespace kdecl
