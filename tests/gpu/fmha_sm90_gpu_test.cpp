// The sm_90 tma_wgmma_ws attention kernels (FlashAttention-3 style) against the
// exact host reference (label gpu; skipped without an sm_90 device). Each
// registered tma_wgmma_ws instance is forced by name on problems of its own
// signature: odd lengths, Sq != Skv, GQA and MQA, BHSD and padded strides, the
// LSE, rows that see no key, varlen batches with empty sequences. Outputs are
// poisoned with NaN first (run_and_check); NaN never passes. The dispatcher must
// prefer these kernels over mma_sync where they apply and fall back where not.
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/runtime/fmha_check.hpp"

namespace kdecl {
namespace {

std::optional<device> sm90() {
  for (const auto& d : available_devices())
    if (d.kind() == backend::cuda && d.arch == arch_id::sm_90) return d;
  return std::nullopt;
}

#define REQUIRE_SM90()                                     \
  const auto dev = sm90();                                 \
  if (!dev) GTEST_SKIP() << "no sm_90 CUDA device";        \
  const fmha_dispatcher dispatcher(*dev)

std::vector<const fmha_instance*> tma_instances() {
  std::vector<const fmha_instance*> out;
  for (const auto& e : registry::global().filter([](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == arch_id::sm_90;
       })) {
    // The forward kernels (the paged batch_prefill ones are fmha_paged_instances, tested with decode).
    const auto* f = dynamic_cast<const fmha_instance*>(e.instance.get());
    if (f != nullptr && f->key().algo.pipe == fmha_pipeline::tma_wgmma_ws && f->key().sig.family == fmha_family::fwd)
      out.push_back(f);
  }
  return out;
}

fmha_check check(const fmha_dispatcher& d, const fmha_problem& p, const std::string& kernel, std::uint64_t seed) {
  fmha_check_options o;
  o.kernel = kernel;
  o.seed = seed;
  o.warm_up = false;
  return run_and_check(d, p, o);
}

std::string report(const fmha_check& r) {
  return r.kernel + ": O error " + std::to_string(r.o_error) + " (tolerance " + std::to_string(r.o_tolerance) +
         "), LSE error " + std::to_string(r.lse_error) + " (tolerance " + std::to_string(r.lse_tolerance) + ")";
}

// Problems of the key's signature (mask kind, mode, dtype), head dims hq/hv.
std::vector<fmha_problem> problems_for(const fmha_key& k, std::int64_t hq, std::int64_t hv) {
  std::vector<fmha_problem> out;
  auto base = [&] {
    fmha_problem p;
    p.head_dims(hq, hv).dtype(k.sig.qkv).causal(k.sig.mask).return_lse();
    if (k.sig.mask == fmha_mask::generic) p.sliding_window(77, 3);
    if (k.sig.bias == fmha_bias::alibi) p.alibi();
    if (k.sig.bias == fmha_bias::elementwise) p.elementwise_bias();
    if (k.sig.logits_soft_cap) p.logits_soft_cap(20.0f);
    p.with_sinks(k.sig.sink);
    return p;
  };
  if (k.sig.mode == fmha_mode::group) {
    out.push_back(base().heads(8, 2).varlen({127, 0, 1, 33, 300}, {129, 7, 0, 40, 131}));
    out.push_back(base().heads(4, 1).varlen({600, 17, 64}, {700, 300, 128}));
  } else {
    out.push_back(base().heads(8, 2).sizes(2, 127, 129));          // GQA 4, tails in both
    out.push_back(base().heads(3, 3).sizes(1, 1, 1));              // one query, one key
    out.push_back(base().heads(4, 1).sizes(1, 520, 517));          // MQA
    out.push_back(base().heads(4, 4).sizes(2, 17, 300).bhsd());    // BHSD, Sq < Skv
    out.push_back(base().heads(2, 2).sizes(1, 333, 40));           // Sq > Skv: rows that see no key (bottom-right)
    fmha_problem padded = base().heads(4, 2).sizes(2, 150, 170);   // gaps between rows and heads
    padded.strides({150 * 4 * (hq + 8), 4 * (hq + 8), hq + 8}, {170 * 2 * (hq + 16), 2 * (hq + 16), hq + 16},
                   {170 * 2 * (hv + 8), 2 * (hv + 8), hv + 8}, {150 * 4 * hv, 4 * hv, hv});
    padded.return_lse(true, 4 * 160, 160);
    out.push_back(padded);
  }
  return out;
}

TEST(FmhaSm90Gpu, EveryTmaWgmmaInstanceMatchesTheReference) {
  REQUIRE_SM90();
  const auto instances = tma_instances();
  ASSERT_GE(instances.size(), 60u) << "the sm_90 tma_wgmma_ws sets are registered";
  std::uint64_t seed = 11;
  for (const auto* inst : instances) {
    const auto& key = inst->key();
    SCOPED_TRACE(inst->name());
    for (auto [hq, hv] : {std::pair<std::int64_t, std::int64_t>{key.sig.hdim_q, key.sig.hdim_v},
                          {key.sig.hdim_q - 24, key.sig.hdim_v - 8}}) {
      const auto problems = problems_for(key, hq, hv);
      // Padded head dims (TMA zero-fills the columns past them): the first two problems suffice.
      const std::size_t count = hq == key.sig.hdim_q ? problems.size() : 2;
      for (std::size_t i = 0; i < count; ++i) {
        const auto& p = problems[i];
        const auto r = check(dispatcher, p, inst->name(), seed++);
        EXPECT_TRUE(r.passed) << report(r) << " (problem " << i << ": Sq " << p.seqlen_q << ", Skv " << p.seqlen_kv
                              << ", hdim " << hq << "/" << hv << ")";
      }
    }
  }
}

// The consumers' three schedules (KDECL_FMHA_SM90_SCHEDULE, read per launch) on the same problems.
TEST(FmhaSm90Gpu, EveryScheduleMatchesTheReference) {
  REQUIRE_SM90();
  std::vector<fmha_problem> problems;
  for (auto mask : {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right})
    for (std::int64_t d : {64, 128}) {
      fmha_problem p;
      p.sizes(2, 300, 1111).heads(8, 2).head_dim(d).dtype(d == 64 ? dtype::fp16 : dtype::bf16).causal(mask).return_lse();
      problems.push_back(p);
    }
  fmha_problem window;
  window.sizes(1, 700, 700).heads(4, 4).head_dim(128).dtype(dtype::bf16).sliding_window(200, 0).return_lse();
  problems.push_back(window);
  fmha_problem varlen;
  varlen.heads(8, 1).head_dim(128).dtype(dtype::bf16).causal().return_lse().varlen({513, 0, 129, 1}, {513, 5, 300, 1});
  problems.push_back(varlen);
  fmha_problem gemma;  // soft-cap, causal, GQA (Gemma 2)
  gemma.sizes(1, 400, 400).heads(8, 4).head_dim(128).dtype(dtype::bf16).causal().logits_soft_cap(50.0f).return_lse();
  problems.push_back(gemma);
  fmha_problem oss;  // sinks and a sliding window (gpt-oss)
  oss.sizes(1, 333, 333).heads(8, 1).head_dim(64).dtype(dtype::bf16).sliding_window(128, 0).with_sinks().return_lse();
  problems.push_back(oss);
  fmha_problem gemma_wide;  // head dim 256 (80-key tiles), soft-cap, a sliding window (Gemma 2's local layers)
  gemma_wide.sizes(1, 300, 450).heads(8, 4).head_dim(256).dtype(dtype::bf16).sliding_window(160, 0)
      .logits_soft_cap(50.0f).return_lse();
  problems.push_back(gemma_wide);
  fmha_problem padding;  // a key bias ([B, 1, 1, Skv], BERT's padding mask): the bias's row stride is 0
  padding.sizes(3, 200, 200).heads(4, 4).head_dim(64).dtype(dtype::fp16).key_bias(true, false).return_lse();
  problems.push_back(padding);
  fmha_problem mla;  // head dims 192/128 (DeepSeek's prefill), causal
  mla.sizes(1, 260, 260).heads(4, 4).head_dims(192, 128).dtype(dtype::fp16).causal().return_lse();
  problems.push_back(mla);
  fmha_problem one_tile;  // a single key tile: the overlapped schedules' prologue and epilogue only
  one_tile.sizes(1, 200, 100).heads(2, 2).head_dim(128).dtype(dtype::bf16).return_lse();
  problems.push_back(one_tile);
  std::uint64_t seed = 100;
  for (const char* schedule : {"plain", "overlap", "pingpong"}) {
    setenv("KDECL_FMHA_SM90_SCHEDULE", schedule, 1);
    for (const auto& p : problems) {
      auto sel = dispatcher.select(p);
      ASSERT_TRUE(sel) << sel.explain();
      ASSERT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << sel.kernel->name();
      const auto r = check(dispatcher, p, sel.kernel->name(), seed++);
      EXPECT_TRUE(r.passed) << schedule << ": " << report(r) << " (Sq " << p.seqlen_q << ", Skv " << p.seqlen_kv
                            << ", hdim " << p.hdim_q << ", mask " << to_string(p.mask) << ")";
    }
  }
  unsetenv("KDECL_FMHA_SM90_SCHEDULE");
}

TEST(FmhaSm90Gpu, LongSequencesOnTheTmaKernel) {
  REQUIRE_SM90();
  for (auto mask : {fmha_mask::none, fmha_mask::top_left}) {
    fmha_problem p;
    p.sizes(1, 4099, 4099).heads(4, 1).head_dim(128).dtype(dtype::bf16).causal(mask).return_lse();
    auto sel = dispatcher.select(p);
    ASSERT_TRUE(sel) << sel.explain();
    EXPECT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << sel.kernel->name();
    const auto r = check(dispatcher, p, sel.kernel->name(), 5);
    EXPECT_TRUE(r.passed) << report(r);
  }
}

TEST(FmhaSm90Gpu, DispatcherPrefersTmaWgmmaAndFallsBack) {
  REQUIRE_SM90();
  fmha_problem llama;
  llama.sizes(4, 4096, 4096).heads(32, 8).head_dim(128).dtype(dtype::bf16).causal();
  auto sel = dispatcher.select(llama);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << sel.kernel->name();
  // Soft-cap (Gemma 2) runs on the sm_90 kernel too.
  fmha_problem capped = fmha_problem(llama).logits_soft_cap(30.0f);
  capped.sizes(1, 300, 300);
  auto c = dispatcher.select(capped);
  ASSERT_TRUE(c) << c.explain();
  EXPECT_EQ(c.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws);
  EXPECT_TRUE(check(dispatcher, capped, c.kernel->name(), 3).passed);
  // No key in any sequence (TMA maps no empty tensor): mma_sync takes it.
  fmha_problem keyless = fmha_problem(llama).return_lse();
  keyless.sizes(2, 70, 0);
  auto k = dispatcher.select(keyless);
  ASSERT_TRUE(k) << k.explain();
  EXPECT_EQ(k.kernel->key().algo.pipe, fmha_pipeline::mma_sync);
  EXPECT_TRUE(check(dispatcher, keyless, k.kernel->name(), 4).passed);
  // Head dims 256 (80-key tiles), 192/128 and 200 (padded onto 256) run on the sm_90 kernel.
  for (auto [hq, hv] : {std::pair<std::int64_t, std::int64_t>{256, 256}, {192, 128}, {200, 200}}) {
    fmha_problem wide = fmha_problem(llama).head_dims(hq, hv);
    wide.sizes(1, 100, 100);
    auto w = dispatcher.select(wide);
    ASSERT_TRUE(w) << w.explain();
    EXPECT_EQ(w.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws) << hq << "/" << hv;
    EXPECT_TRUE(check(dispatcher, wide, w.kernel->name(), 6).passed) << w.kernel->name();
  }
}

}  // namespace
}  // namespace kdecl
