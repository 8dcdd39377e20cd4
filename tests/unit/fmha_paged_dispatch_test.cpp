// The serving families through the registry: their declarations expand to the kernels
// instances/fmha_paged.cpp registers, names parse back to valid keys, and
// fmha_paged_dispatcher picks, explains and runs them. On the host every family runs
// through the dispatcher against the references called directly (outputs poisoned with
// NaN first); split-KV with a lent workspace equals the one-stage result. The CUDA
// keys (registered when the build has nvcc) are selected offline for sm_90.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/fmha/fmha_name.hpp"
#include "kdecl/fmha/fmha_paged_dispatcher.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/runtime/fmha_paged_case.hpp"
#include "paged_kernels.hpp"

namespace kdecl {
namespace {

using bf16_t = host_storage_t<dtype::bf16>;
using fp16_t = host_storage_t<dtype::fp16>;

using kdecl::testing::paged_kernels;

TEST(FmhaPagedRegistry, NamesParseBackAndKeysAreValid) {
  int host = 0;
  for (arch_id arch : {arch_id::host, arch_id::sm_80, arch_id::sm_90})
    for (const auto& k : paged_kernels(arch)) {
      EXPECT_TRUE(is_paged_family(k->key().sig.family)) << k->name();
      EXPECT_EQ(parse_fmha_name(k->name()), k->key()) << k->name();
      const auto d = dsl::validate(k->key(), k->arch());
      EXPECT_TRUE(d.ok()) << k->name() << ": " << dsl::describe(d).view();
      host += arch == arch_id::host;
    }
  EXPECT_EQ(host, 14);  // decode 8 (2 families x 2 dtypes x 2 caches), append 4, prefill 2
  // The forward dispatcher does not see them.
  fmha_problem fwd;
  fwd.sizes(1, 8, 8).heads(2, 2).head_dim(64).dtype(dtype::bf16);
  const auto sel = fmha_dispatcher(device::host()).select(fwd, nullptr, true);
  ASSERT_TRUE(sel) << sel.explain();
  for (const auto& r : sel.rejected) EXPECT_EQ(r.kernel.find("paged"), std::string::npos) << r.kernel;
}

TEST(FmhaPagedRegistry, CacheDtypeAppearsInTheName) {
  const std::string name =
      "fmha_fwd_splitkv_bf16_kv-fp8_batch_h128x128_mask-generic_bias-none_lse_softcap_sink_paged_decode_"
      "16x64x128x128x64x128_w1x4x1_wt16x8x16_s4_padskdv_sm_90";
  const fmha_key k = parse_fmha_name(name);
  EXPECT_EQ(k.sig.cache, dtype::fp8);
  EXPECT_EQ(k.algo.pipe, fmha_pipeline::paged_decode);
  EXPECT_EQ(kernel_name(k), name);
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << dsl::describe(dsl::validate(k, arch_id::sm_90)).view();
  EXPECT_THROW(parse_fmha_name("fmha_fwd_splitkv_bf16_kv-f9_batch_h128x128_mask-generic_bias-none_paged_decode_"
                               "16x64x128x128x64x128_w1x4x1_wt16x8x16_s4_padskdv_sm_90"),
               std::invalid_argument);
}

// The declaration rules of the serving pipelines, as run-time checks.
TEST(FmhaPagedRules, TablesRefuseWhatTheKernelsCannotDo) {
  using namespace dsl;
  auto check = [](const fmha_decl& d, arch_id arch, rule expected) {
    const auto diag = validate(d.key(), arch);
    EXPECT_EQ(diag.r, expected) << describe(diag).view();
  };
  const auto decode = fmha().family(fwd_splitkv).dtype(bf16).hdim(128).mask(generic_mask).pipeline(paged_decode)
                          .tile(16, 64).pad(true, true, true, true);
  EXPECT_TRUE(validate(decode.key(), arch_id::sm_90).ok());
  EXPECT_TRUE(validate(decode.kv_cache(fp8).key(), arch_id::sm_80).ok());
  check(decode.tile(32, 64), arch_id::sm_90, rule::fmha_tile_not_offered_for_pipeline);
  check(decode.hdim(96), arch_id::sm_90, rule::fmha_pipeline_requires_hdim_64_128_or_256);
  check(decode.hdim(128, 64), arch_id::sm_90, rule::fmha_paged_cache_requires_equal_hdims);
  check(decode.family(kdecl::fmha_family::fwd), arch_id::sm_90, rule::fmha_pipeline_does_not_serve_family);
  check(decode.mode(group_mode), arch_id::sm_90, rule::fmha_family_requires_mode);
  check(decode.hdim(256).stages(4), arch_id::sm_90, rule::fmha_smem_exceeds_capacity);
  check(decode.hdim(256).stages(2), arch_id::sm_86, rule::fmha_smem_exceeds_capacity);
  check(decode.kv_cache(fp16), arch_id::sm_90, rule::fmha_cache_dtype_not_offered);
  check(decode.kv_cache(fp8).family(batch_prefill).mode(group_mode).pipeline(mma_sync).tile(128, 64), arch_id::sm_90,
        rule::fmha_cache_dtype_not_offered);
  check(fmha().dtype(bf16).hdim(128).kv_cache(fp8).pipeline(mma_sync).tile(128, 64), arch_id::sm_90,
        rule::fmha_cache_dtype_not_offered);
  check(decode.family(fwd_splitkv), arch_id::gfx942, rule::fmha_pipeline_not_offered_on_arch);
  // A wildcard stage count keeps every depth that fits: 2 to 4 at head dim 128, 2 and 3 at 256 on sm_90.
  std::size_t n128 = 0, n256 = 0;
  fmha_expansion::expand(decode.stages(any).key(), arch_id::sm_90, [&](const fmha_key&) { ++n128; });
  fmha_expansion::expand(decode.hdim(256).stages(any).key(), arch_id::sm_90, [&](const fmha_key&) { ++n256; });
  EXPECT_EQ(n128, 3u);
  EXPECT_EQ(n256, 2u);
}

template <class T>
std::vector<T> poisoned(std::size_t n) {
  return std::vector<T>(n, T(std::numeric_limits<float>::quiet_NaN()));
}

// Runs cfg through the host dispatcher and through the reference, and compares O and the LSE.
template <class T>
void expect_dispatcher_matches_reference(test::paged_config cfg, dtype dt, const std::string& kernel_fragment) {
  auto c = test::make_paged_case<T>(cfg, dt);
  ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
  const fmha_paged_dispatcher dispatcher(device::host());
  const auto sel = dispatcher.select(c.p, nullptr, true);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find(kernel_fragment), std::string::npos) << sel.kernel->name();
  const std::size_t rows = std::size_t(c.p.total_q() * c.p.heads_q);
  auto got = poisoned<T>(c.q.size()), want = poisoned<T>(c.q.size());
  std::vector<float> got_lse(rows, std::numeric_limits<float>::quiet_NaN()), want_lse = got_lse;
  auto a = c.host_args();
  a.o = got.data();
  a.lse = got_lse.data();
  const status st = dispatcher.run(c.p, a);
  ASSERT_TRUE(st.is_ok()) << st.message();
  auto r = c.host_args();
  r.o = want.data();
  r.lse = want_lse.data();
  if (c.p.prefill()) kernels::host::paged_prefill<T>(c.p, r);
  else kernels::host::paged_decode<T>(c.p, r);
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_FALSE(std::isnan(float(got[i]))) << "O[" << i << "] is NaN";
    ASSERT_NEAR(float(got[i]), float(want[i]), 2e-2f) << "O[" << i << "]";
  }
  for (std::size_t i = 0; i < rows; ++i) {
    ASSERT_FALSE(std::isnan(got_lse[i])) << "LSE[" << i << "] is NaN";
    if (std::isinf(want_lse[i])) EXPECT_EQ(got_lse[i], want_lse[i]);
    else ASSERT_NEAR(got_lse[i], want_lse[i], 1e-4 * std::max(1.0f, std::abs(want_lse[i])));
  }
}

TEST(FmhaPagedDispatch, HostRunsDecodeOneStageAndSplit) {
  test::paged_config cfg;
  cfg.lengths = {1, 300, 0, 1000, 64};
  cfg.heads_q = 8;
  cfg.heads_kv = 2;
  cfg.hdim = 72;  // padded to the key's 256
  cfg.mask = fmha_mask::bottom_right;
  cfg.sinks = true;
  expect_dispatcher_matches_reference<bf16_t>(cfg, dtype::bf16, "fmha_fwd_pagedkv_bf16_batch_h256x256");
  cfg.family = fmha_family::fwd_splitkv;
  cfg.splits = 7;  // explicit: the dispatcher lends the workspace
  cfg.table = page_table_kind::page_list;
  cfg.soft_cap = 3.0f;
  expect_dispatcher_matches_reference<fp16_t>(cfg, dtype::fp16, "fmha_fwd_splitkv_fp16_batch");
  cfg.splits = 0;  // planned from the host's threads
  cfg.seqlen_q = 3;
  cfg.mask = fmha_mask::generic;
  cfg.window_left = 50;
  cfg.window_right = 0;
  expect_dispatcher_matches_reference<bf16_t>(cfg, dtype::bf16, "fmha_fwd_splitkv_bf16_batch");
}

TEST(FmhaPagedDispatch, HostRunsAnFp8CacheAndPrefill) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {129, 7};
  cfg.heads_q = 4;
  cfg.heads_kv = 4;
  cfg.hdim = 64;
  cfg.fp8_cache = true;
  cfg.scale_per_head = true;
  cfg.splits = 3;
  expect_dispatcher_matches_reference<bf16_t>(cfg, dtype::bf16, "_kv-fp8_");
  test::paged_config pre;
  pre.family = fmha_family::batch_prefill;
  pre.lengths = {40, 5, 0, 77};
  pre.q_lengths = {13, 5, 0, 1};
  pre.heads_q = 6;
  pre.heads_kv = 3;
  pre.hdim = 32;
  pre.mask = fmha_mask::bottom_right;
  expect_dispatcher_matches_reference<fp16_t>(pre, dtype::fp16, "fmha_batch_prefill_fp16_group");
}

TEST(FmhaPagedDispatch, HostAppendWritesThePages) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_appendkv;
  cfg.lengths = {5, 0, 31};
  cfg.seqlen_q = 3;
  cfg.heads_q = 4;
  cfg.heads_kv = 2;
  cfg.hdim = 16;
  cfg.page_size = 4;
  auto c = test::make_paged_case<fp16_t>(cfg, dtype::fp16);
  ASSERT_FALSE(c.p.validate().has_value()) << *c.p.validate();
  std::vector<fp16_t> k_new(std::size_t(3 * 3 * 2 * 16)), v_new(k_new.size());
  for (std::size_t i = 0; i < k_new.size(); ++i) {
    k_new[i] = fp16_t(float(i % 13) / 8.0f - 0.75f);
    v_new[i] = fp16_t(float(i % 7) / 4.0f - 0.5f);
  }
  auto ours = c;      // the dispatcher writes into these pages
  auto theirs = c;    // the reference into these
  auto a = ours.host_args();
  a.k_new = k_new.data();
  a.v_new = v_new.data();
  const fmha_paged_dispatcher dispatcher(device::host());
  const auto sel = dispatcher.select(ours.p, &a);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find("fmha_fwd_appendkv_fp16_batch"), std::string::npos) << sel.kernel->name();
  ASSERT_TRUE(dispatcher.run(ours.p, a).is_ok());
  auto r = theirs.host_args();
  r.k_new = k_new.data();
  r.v_new = v_new.data();
  kernels::host::paged_append<fp16_t>(theirs.p, r);
  ASSERT_EQ(ours.k_cache.size(), theirs.k_cache.size());
  for (std::size_t i = 0; i < ours.k_cache.size(); ++i) {
    EXPECT_EQ(float(ours.k_cache[i]), float(theirs.k_cache[i])) << i;
    EXPECT_EQ(float(ours.v_cache[i]), float(theirs.v_cache[i])) << i;
  }
  // Without the new tokens, it says so.
  auto missing = ours.host_args();
  const auto refused = dispatcher.select(ours.p, &missing);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.explain().find("append-KV needs the new K and V"), std::string::npos) << refused.explain();
}

TEST(FmhaPagedDispatch, RefusalsNameTheReason) {
  test::paged_config cfg;
  cfg.family = fmha_family::batch_prefill;
  cfg.lengths = {40};
  cfg.q_lengths = {8};
  cfg.heads_q = 2;
  cfg.heads_kv = 2;
  cfg.hdim = 64;
  auto c = test::make_paged_case<fp16_t>(cfg, dtype::fp16);
  // An invalid problem: the rule it broke.
  auto bad = c.p;
  bad.hdim = 264;
  const fmha_paged_dispatcher host(device::host());
  EXPECT_NE(host.select(bad).explain().find("hdim = 264"), std::string::npos) << host.select(bad).explain();
  // On sm_90 the prefill keys hold the soft-cap at head dims 128 and 256 and sinks at 64, each
  // compiled in: the key for each, and the reasons where none fits (when CUDA kernels are built).
  device sm90;
  sm90.arch = arch_id::sm_90;
  sm90.description = "offline sm_90";
  if (paged_kernels(arch_id::sm_90).empty()) {
    EXPECT_NE(fmha_paged_dispatcher(sm90).select(c.p).explain().find("no paged attention kernel is registered"),
              std::string::npos);
    GTEST_SKIP() << "this build has no CUDA kernels: offline sm_90 selection not checked";
  }
  const fmha_paged_dispatcher offline(sm90);
  auto sinks = c.p;
  sinks.sinks = true;
  auto chosen = offline.select(sinks);
  ASSERT_TRUE(chosen) << chosen.explain();
  EXPECT_NE(chosen.kernel->name().find("_sink"), std::string::npos) << chosen.kernel->name();
  auto capped = c.p;  // head dim 64: the 128 soft-cap key, padded
  capped.soft_cap = 30.0f;
  chosen = offline.select(capped);
  ASSERT_TRUE(chosen) << chosen.explain();
  EXPECT_NE(chosen.kernel->name().find("_softcap"), std::string::npos) << chosen.kernel->name();
  EXPECT_EQ(chosen.kernel->key().sig.hdim_q, 128) << chosen.kernel->name();
  auto both = capped;
  both.sinks = true;
  const auto refused = offline.select(both);
  ASSERT_FALSE(refused);
  const std::string all = refused.explain(64);
  EXPECT_NE(all.find("has no sinks, the problem needs them"), std::string::npos) << all;
  EXPECT_NE(all.find("has no logit soft-cap, the problem needs it"), std::string::npos) << all;
  auto wide = sinks;  // sinks at head dim 128: the sink key holds 64
  wide.hdim = 128;
  wide.q_strides = wide.o_strides = {};
  wide.k_strides = wide.v_strides = {};
  const auto too_wide = offline.select(wide);
  ASSERT_FALSE(too_wide);
  EXPECT_NE(too_wide.explain(64).find("hdim = 128 is larger than the kernel's 64"), std::string::npos)
      << too_wide.explain(64);
}

// A registered kernel called directly (not through the dispatcher) validates the problem:
// an fp8 cache with a head dim that is not a multiple of 16 gets the rule, not a run.
TEST(FmhaPagedDispatch, DirectKernelCallsValidateTheProblem) {
  test::paged_config cfg;
  cfg.family = fmha_family::fwd_splitkv;
  cfg.lengths = {33, 5};
  cfg.heads_q = 4;
  cfg.heads_kv = 2;
  cfg.hdim = 56;
  cfg.fp8_cache = true;
  auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
  std::vector<bf16_t> o(c.q.size());
  std::vector<float> lse(std::size_t(c.p.total_q() * c.p.heads_q));
  auto a = c.host_args();
  a.o = o.data();
  a.lse = lse.data();
  int refused = 0;
  for (const auto& k : paged_kernels(arch_id::host)) {
    if (k->key().sig.cache != dtype::fp8 || k->key().sig.family != fmha_family::fwd_splitkv) continue;
    const auto why = k->why_not_paged(c.p, a);
    ASSERT_TRUE(why.has_value()) << k->name();
    EXPECT_NE(why->find("hdim = 56: an fp8 cache needs head dims that are multiples of 16"), std::string::npos) << *why;
    const status st = k->run_paged(c.p, a, nullptr);
    EXPECT_FALSE(st.is_ok()) << k->name();
    EXPECT_EQ(st.message(), *why);
    ++refused;
  }
  EXPECT_GE(refused, 1) << "the host registers split-KV kernels with an fp8 cache";
}

// Offline batch_prefill on sm_90: the tma_wgmma_ws kernel (K/V tiles through TMA, page by page)
// for pages of 8 rows or more, ranked ahead of mma_sync; pages of 4 rows get mma_sync, and the
// tma kernel's refusal names the rule; sm_80 has only mma_sync.
TEST(FmhaPagedDispatch, OfflineSm90PrefillTakesTmaWgmmaForPagesOf8OrMore) {
  if (paged_kernels(arch_id::sm_90).empty()) GTEST_SKIP() << "this build has no CUDA kernels";
  device sm90;
  sm90.arch = arch_id::sm_90;
  sm90.description = "offline sm_90";
  test::paged_config cfg;
  cfg.family = fmha_family::batch_prefill;
  cfg.lengths = {700, 64};
  cfg.q_lengths = {200, 64};
  cfg.mask = fmha_mask::bottom_right;
  for (std::int64_t d : {64, 128, 200}) {
    for (std::int64_t page : {8, 16, 256}) {
      cfg.hdim = d;
      cfg.page_size = page;
      auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
      const auto sel = fmha_paged_dispatcher(sm90).select(c.p, nullptr, true);
      ASSERT_TRUE(sel) << sel.explain();
      EXPECT_NE(sel.kernel->name().find("tma_wgmma_ws"), std::string::npos) << "d " << d << " page " << page << ": "
                                                                            << sel.explain();
    }
  }
  cfg.hdim = 128;
  cfg.page_size = 4;
  auto c = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
  const auto sel = fmha_paged_dispatcher(sm90).select(c.p, nullptr, true);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find("mma_sync"), std::string::npos) << sel.explain();
  bool tma_refused = false;
  for (const auto& r : sel.rejected)
    tma_refused |= r.kernel.find("tma_wgmma_ws") != std::string::npos &&
                   r.reason.find("page_size = 4: the tma_wgmma_ws prefill loads whole boxes of at least 8 rows") !=
                       std::string::npos;
  EXPECT_TRUE(tma_refused) << "the tma_wgmma_ws prefill's refusal names the page size and the rule";
  device sm80 = sm90;
  sm80.arch = arch_id::sm_80;
  cfg.page_size = 16;
  auto c80 = test::make_paged_case<bf16_t>(cfg, dtype::bf16);
  const auto sel80 = fmha_paged_dispatcher(sm80).select(c80.p);
  ASSERT_TRUE(sel80) << sel80.explain();
  EXPECT_NE(sel80.kernel->name().find("mma_sync"), std::string::npos) << sel80.explain();
}

// Offline selection for sm_90 (CUDA kernels registered): the smallest head dim that holds
// the problem's, the cache dtype, split-KV planned from the table's 132 SMs.
TEST(FmhaPagedDispatch, OfflineSm90PicksTheNarrowestHeadDim) {
  if (paged_kernels(arch_id::sm_90).empty()) GTEST_SKIP() << "this build has no CUDA kernels";
  device sm90;
  sm90.arch = arch_id::sm_90;
  sm90.description = "offline sm_90";
  fmha_paged_problem p;
  p.family = fmha_family::fwd_splitkv;
  p.batch = 1;
  p.heads_q = 32;
  p.heads_kv = 8;
  p.hdim = 128;
  p.page_size = 16;
  p.num_pages = 512;
  p.max_pages_per_seq = 512;
  p.seqlens_kv = {8192};
  const fmha_paged_dispatcher dispatcher(sm90);
  auto sel = dispatcher.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find("fmha_fwd_splitkv_bf16_batch_h128x128"), std::string::npos) << sel.kernel->name();
  EXPECT_GT(sel.splits, 1);
  EXPECT_GT(sel.workspace_bytes, 0u);
  p.hdim = 80;
  p.cache = dtype::fp8;
  sel = dispatcher.select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_NE(sel.kernel->name().find("_kv-fp8_batch_h128x128"), std::string::npos) << sel.kernel->name();
}

}  // namespace
}  // namespace kdecl
