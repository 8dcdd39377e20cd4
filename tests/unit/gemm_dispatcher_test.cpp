#include <gtest/gtest.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"
#include "test_keys.hpp"

namespace kdecl {
namespace {

using testing::make_key;
using testing::recording_gemm;

device sm90() { return device{arch_id::sm_90, 0, "test sm_90"}; }

gemm_problem fp16_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemm_problem{}.sizes(m, n, k).dtype(dtype::fp16).layout(rcr);
}

TEST(GemmDispatcher, NeverPicksAnotherDtypeLayoutOrArch) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::bf16, rcr, 128, 128, 64)), "s");
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rrr, 128, 128, 64)), "s");
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64, arch_id::sm_80)), "s");
  gemm_dispatcher d(sm90(), reg);
  auto sel = d.select(fp16_problem(1024, 1024, 1024));
  EXPECT_FALSE(sel);
  auto text = sel.explain();
  EXPECT_NE(text.find("A dtype is bf16, the problem's is fp16"), std::string::npos) << text;
  EXPECT_NE(text.find("layout is rrr, the problem's is rcr"), std::string::npos) << text;

  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");
  sel = d.select(fp16_problem(1024, 1024, 1024));
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().sig.a, dtype::fp16);
  EXPECT_EQ(sel.kernel->key().sig.lay, rcr);
  EXPECT_EQ(sel.kernel->arch(), arch_id::sm_90);
}

TEST(GemmDispatcher, Tf32OnlyWhenAsked) {
  registry reg;
  auto k = make_key(dtype::fp32, rcr, 128, 128, 32);
  k.sig.compute = dtype::tf32;
  reg.add(std::make_shared<recording_gemm>(k), "s");
  gemm_dispatcher d(sm90(), reg);
  auto p = gemm_problem{}.sizes(256, 256, 256).dtype(dtype::fp32).layout(rcr);
  auto sel = d.select(p);
  EXPECT_FALSE(sel);
  EXPECT_NE(sel.explain().find("computes in tf32, the problem asks for fp32"), std::string::npos) << sel.explain();
  EXPECT_TRUE(d.select(p.compute(dtype::tf32)));
}

TEST(GemmDispatcher, DivisibilityAndPadding) {
  registry reg;
  auto strict = make_key(dtype::fp16, rcr, 128, 128, 64);
  strict.algo.pad_m = strict.algo.pad_n = strict.algo.pad_k = tristate::no;
  reg.add(std::make_shared<recording_gemm>(strict), "s");
  gemm_dispatcher d(sm90(), reg);
  EXPECT_TRUE(d.select(fp16_problem(256, 256, 256)));
  auto sel = d.select(fp16_problem(1000, 256, 256));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("M = 1000 is not a multiple of tile_m = 128"), std::string::npos) << sel.explain();
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");  // pads
  sel = d.select(fp16_problem(1000, 256, 256));
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel.kernel->key().algo.pad_m, tristate::yes);
}

TEST(GemmDispatcher, AlignmentPicksNarrowerVectorsOrExplains) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");
  gemm_dispatcher d(sm90(), reg);
  auto p = fp16_problem(512, 512, 100);  // lda = 100 halves = 200 bytes: 8-byte aligned, not 16
  auto sel = d.select(p);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("lda = 100 elements (200 bytes) is not a multiple of the kernel's 16-byte"),
            std::string::npos) << sel.explain();
  auto narrow = make_key(dtype::fp16, rcr, 128, 128, 64);
  narrow.algo.vector_bytes = 8;
  reg.add(std::make_shared<recording_gemm>(narrow), "s");
  sel = d.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.vector_bytes, 8);

  // A misaligned pointer is refused at select time, never handed to a kernel.
  alignas(16) static std::uint16_t buf[64];
  gemm_args args{buf + 1, buf, buf};
  auto sel2 = d.select(fp16_problem(512, 512, 128), &args);
  ASSERT_FALSE(sel2);
  EXPECT_NE(sel2.explain().find("pointer A"), std::string::npos) << sel2.explain();
}

TEST(GemmDispatcher, ThirtyTwoBitOffsets) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");
  gemm_dispatcher d(sm90(), reg);
  auto sel = d.select(fp16_problem(70000, 128, 40000));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("32-bit indexing"), std::string::npos) << sel.explain();
}

TEST(GemmDispatcher, SixtyFourBitKernelsTakeWhatOverflows) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");
  auto wide = make_key(dtype::fp16, rcr, 128, 128, 64);
  wide.algo.index_bits = 64;
  reg.add(std::make_shared<recording_gemm>(wide), "s");
  gemm_dispatcher d(sm90(), reg);
  auto sel = d.select(fp16_problem(70000, 128, 40000));
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.index_bits, 64);
  // Where 32 bits suffice, the 32-bit kernel wins (64-bit offsets carry a small cost).
  sel = d.select(fp16_problem(4096, 4096, 4096));
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel.kernel->key().algo.index_bits, 32);
  // D counts too (multi_d): a D of 2^31 elements needs 64 bits.
  auto k32 = make_key(dtype::fp16, rcr, 128, 128, 64);
  k32.sig.variant = gemm_variant::multi_d;
  k32.sig.num_d = 1;
  registry reg2;
  reg2.add(std::make_shared<recording_gemm>(k32), "s");
  gemm_dispatcher d2(sm90(), reg2);
  auto p = fp16_problem(1000, 1000, 64).multi_d(elementwise::pass_through, 1, 3000000);
  sel = d2.select(p);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("D spans"), std::string::npos) << sel.explain();
}

// The CUDA pipelines' epilogues take C and D at any alignment (the arch tables say
// so): a 2-byte aligned C leaves the choice to A's and B's alignment alone.
TEST(GemmDispatcher, CAlignmentDoesNotBindEpiloguesThatTakeAny) {
  registry reg;
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "s");
  gemm_dispatcher d(sm90(), reg);
  auto p = fp16_problem(512, 50257, 256);  // ldc = 50257 halves: 2-byte aligned rows
  EXPECT_TRUE(d.select(p)) << d.select(p).explain();
  alignas(256) static unsigned char buf[1024];
  gemm_args args{buf, buf, buf + 2};
  EXPECT_TRUE(d.select(p, &args));
  // A pointer not aligned to its own element is refused by every kernel, with the reason.
  gemm_args odd{buf, buf, buf + 1};
  auto sel = d.select(p, &odd);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("pointer C"), std::string::npos) << sel.explain();
  EXPECT_NE(sel.explain().find("2-byte fp16 elements"), std::string::npos) << sel.explain();
  // A pipeline without that property (the AMD ones) still needs C aligned to its width.
  registry amd;
  amd.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64, arch_id::gfx942,
                                                    pipeline::compv3)), "s");
  gemm_dispatcher da(device{arch_id::gfx942, 0, "test gfx942"}, amd);
  sel = da.select(p);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("ldc = 50257"), std::string::npos) << sel.explain();
}

// A gemv kernel holds every row of A in each block: it takes problems of up to tile.m rows, on
// the dispatcher's fast path as in its explanations.
TEST(GemmDispatcher, GemvKernelsTakeOnlyTheRowsTheyHold) {
  registry reg;
  auto stream = [](int rows, int cols, int k) {
    gemm_key g = make_key(dtype::fp16, rcr, rows, cols, k, arch_id::sm_90, pipeline::gemv);
    g.algo.warps = {1, 1, 4};
    g.algo.warp_tile = {1, 1, 256};
    g.algo.stages = 1;
    g.algo.epi = epilogue::direct;
    return g;
  };
  reg.add(std::make_shared<recording_gemm>(stream(1, 2, 2048)), "s");
  reg.add(std::make_shared<recording_gemm>(stream(8, 4, 1024)), "s");
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 64, 128, 64, arch_id::sm_90,
                                                    pipeline::tma_wgmma)), "s");
  gemm_dispatcher d(sm90(), reg);
  auto one_row = d.select(fp16_problem(1, 8192, 8192));
  ASSERT_TRUE(one_row) << one_row.explain();
  EXPECT_EQ(one_row.kernel->key().algo.pipe, pipeline::gemv) << one_row.explain();
  auto twelve = d.select(fp16_problem(12, 8192, 8192), nullptr, /*explain_all=*/true);
  ASSERT_TRUE(twelve) << twelve.explain();
  EXPECT_EQ(twelve.kernel->key().algo.pipe, pipeline::tma_wgmma);
  bool told = false;
  for (const auto& r : twelve.rejected) told |= r.reason.find("M = 12 is more than the kernel's tile.m = 8") != std::string::npos;
  EXPECT_TRUE(told) << twelve.explain();
  // Nine rows: only the 8-row gemv's bound is passed; the tma_wgmma tile takes it.
  auto nine = d.select(fp16_problem(9, 8192, 8192));
  ASSERT_TRUE(nine);
  EXPECT_EQ(nine.kernel->key().algo.pipe, pipeline::tma_wgmma);
}

TEST(GemmDispatcher, KernelRefusalIsReported) {
  registry reg;
  auto k = std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64));
  k->refusal = "needs K >= 64 for its prologue";
  reg.add(k, "s");
  gemm_dispatcher d(sm90(), reg);
  auto sel = d.select(fp16_problem(256, 256, 256));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("needs K >= 64"), std::string::npos);
}

TEST(GemmDispatcher, DeterministicRankingAndTieBreak) {
  registry reg;
  for (int tm : {64, 128, 256})
    for (int tn : {64, 128, 256}) reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, tm, tn, 64)), "s");
  gemm_dispatcher d1(sm90(), reg), d2(sm90(), reg);
  for (auto [m, n, k] : {std::tuple{4096, 4096, 4096}, {64, 4096, 4096}, {1000, 1000, 88}}) {
    auto a = d1.select(fp16_problem(m, n, k));
    auto b = d2.select(fp16_problem(m, n, k));
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a.kernel->name(), b.kernel->name());
    auto r = d1.ranked(fp16_problem(m, n, k));
    ASSERT_EQ(r.size(), 9u);
    EXPECT_EQ(r.front().first->name(), a.kernel->name());
    for (std::size_t i = 1; i < r.size(); ++i) EXPECT_LE(r[i - 1].second, r[i].second);
  }
  // Large squares prefer large tiles, tiny M prefers a small tile_m.
  EXPECT_GE(d1.select(fp16_problem(8192, 8192, 8192)).kernel->key().algo.tile.m, 128);
  EXPECT_EQ(d1.select(fp16_problem(16, 8192, 8192)).kernel->key().algo.tile.m, 64);
}

TEST(GemmDispatcher, InvalidProblemIsExplainedAndNotRun) {
  registry reg;
  auto k = std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64));
  reg.add(k, "s");
  gemm_dispatcher d(sm90(), reg);
  auto st = d.run(fp16_problem(0, 128, 128), gemm_args{});
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("M = 0 must be positive"), std::string::npos) << st.message();
  EXPECT_EQ(k->runs.load(), 0);
}

TEST(GemmDispatcher, LendsAWorkspaceOnlyWhenTheCallerBringsNone) {
  registry reg;
  auto key = make_key(dtype::fp16, rcr, 128, 128, 64, arch_id::host, pipeline::host_blocked);
  auto k = std::make_shared<recording_gemm>(key);
  k->wants_workspace = 4096;
  reg.add(k, "s");
  gemm_dispatcher d(device::host(), reg);
  alignas(256) static std::uint16_t a[64], b[64], c[64];
  ASSERT_TRUE(d.run(fp16_problem(128, 128, 128), gemm_args{a, b, c}).is_ok());
  EXPECT_NE(k->last_workspace, nullptr);
  EXPECT_GE(k->last_workspace_bytes, 4096u);
  alignas(256) static unsigned char mine[8192];
  gemm_args with_own{a, b, c};
  with_own.workspace = mine;
  with_own.workspace_bytes = sizeof(mine);
  ASSERT_TRUE(d.run(fp16_problem(128, 128, 128), with_own).is_ok());
  EXPECT_EQ(k->last_workspace, mine);
}

// A multicast pair along N on a problem one tile wide: every pair's second block loads for its
// partner and computes nothing, so the kernel takes twice the blocks (twice the compute time) of
// the same tile without a cluster. Found on an H100: 274 against 552 TFLOP/s (M 591,872, N 256,
// K 2304), picked because the estimate did not see the idle partners. With two tiles, no penalty.
TEST(GemmDispatcher, MulticastPairsOnOneTileAreEstimatedWithTheirIdleBlocks) {
  auto plain = make_key(dtype::bf16, rcr, 128, 256, 64, arch_id::sm_90, pipeline::tma_wgmma);
  plain.algo.warps = {8, 1, 1};
  plain.algo.warp_tile = {16, 256, 16};
  plain.algo.stages = 4;
  auto pair = plain;
  pair.algo.cluster_n = 2;
  auto problem = [](std::int64_t n) {
    return gemm_problem{}.sizes(591872, n, 2304).dtype(dtype::bf16).layout(rcr).normalized();
  };
  const double one_tile_plain = estimate_microseconds(plain, problem(256));
  const double one_tile_pair = estimate_microseconds(pair, problem(256));
  EXPECT_GT(one_tile_pair, 1.4 * one_tile_plain) << one_tile_plain << " us against " << one_tile_pair << " us";
  EXPECT_NEAR(estimate_microseconds(pair, problem(512)), estimate_microseconds(plain, problem(512)),
              1e-6 * estimate_microseconds(plain, problem(512)));
}

TEST(GemmDispatcher, SeesKernelsRegisteredAfterConstruction) {
  registry reg;
  gemm_dispatcher d(sm90(), reg);
  EXPECT_FALSE(d.select(fp16_problem(128, 128, 128)));
  reg.add(std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 128, 128, 64)), "late");
  EXPECT_TRUE(d.select(fp16_problem(128, 128, 128)));
}


// The analytical tier remembers its choice per problem (key: sizes, strides, signature, pointer
// alignment, registry generation) and checks a remembered kernel against the problem again.
TEST(GemmDispatcher, RemembersItsChoiceAndChecksItAgain) {
  registry reg;
  auto small = std::make_shared<recording_gemm>(make_key(dtype::fp16, rcr, 64, 64, 64));
  auto narrow_key = make_key(dtype::fp16, rcr, 64, 64, 64);
  narrow_key.algo.vector_bytes = 8;
  reg.add(small, "s");
  reg.add(std::make_shared<recording_gemm>(narrow_key), "s");
  gemm_dispatcher d(sm90(), reg);
  const auto p = fp16_problem(8192, 8192, 8192);
  alignas(256) static std::uint16_t buf[64];
  const gemm_args aligned{buf, buf, buf};
  const auto first = d.select(p, &aligned);
  ASSERT_TRUE(first) << first.explain();
  EXPECT_EQ(first.kernel, small);
  EXPECT_EQ(d.select(p, &aligned).kernel, small);
  // Pointers 8 bytes off a 16-byte line: another key, and the 16-byte kernel cannot take them.
  const gemm_args off_line{buf + 4, buf + 4, buf + 4};
  const auto narrow = d.select(p, &off_line);
  ASSERT_TRUE(narrow) << narrow.explain();
  EXPECT_EQ(narrow.kernel->key().algo.vector_bytes, 8);
  EXPECT_EQ(d.select(p, &aligned).kernel, small);
  // A remembered kernel that now refuses the problem is not returned.
  small->refusal = "refuses from now on";
  const auto rechecked = d.select(p, &aligned);
  ASSERT_TRUE(rechecked) << rechecked.explain();
  EXPECT_EQ(rechecked.kernel->key().algo.vector_bytes, 8);
  small->refusal.reset();
  // A kernel registered later is ranked: the generation is part of the key.
  auto large_key = make_key(dtype::fp16, rcr, 256, 128, 64);
  auto large = std::make_shared<recording_gemm>(large_key);
  reg.add(large, "late");
  EXPECT_EQ(d.select(p, &aligned).kernel, large);
}

}  // namespace
}  // namespace kdecl
