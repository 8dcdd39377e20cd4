// The attention dispatcher: exact signatures, head dims and padding, alignment,
// arch, deterministic ranking, and a reason for every refusal.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"

namespace kdecl {
namespace {

// A registered kernel that runs nothing: the dispatcher's view of a kernel is its key and why_not.
class fake_fmha final : public fmha_instance {
 public:
  explicit fake_fmha(const fmha_key& k, std::string refusal = {}) : fmha_instance(k), refusal_(std::move(refusal)) {}
  std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const override {
    if (refusal_.empty()) return std::nullopt;
    return refusal_;
  }
  status run(const fmha_problem&, const fmha_args&, void*) const override { return status::ok(); }
  std::size_t workspace_bytes(const fmha_problem&) const override { return 0; }

 private:
  std::string refusal_;
};

fmha_key nvidia_key(int hdim, int m0, int n0, bool pad_d = true, bool lse = true, arch_id arch = arch_id::sm_80) {
  fmha_key k;
  k.sig.qkv = k.sig.o = dtype::bf16;
  k.sig.hdim_q = k.sig.hdim_v = hdim;
  k.sig.lse = lse;
  k.algo.pipe = fmha_pipeline::mma_sync;
  k.algo.arch = arch;
  k.algo.tile = {m0, n0, 0, 0, 0, 0};
  k.algo.pad_d = k.algo.pad_dv = pad_d ? tristate::yes : tristate::no;
  k = dsl::fmha_rules::with_defaults(k);
  EXPECT_TRUE(dsl::validate(k, arch).ok()) << dsl::describe(dsl::validate(k, arch)).view();
  return k;
}

fmha_problem problem(std::int64_t d = 128) {
  fmha_problem p;
  p.sizes(2, 512, 512).heads(32, 8).head_dim(d).dtype(dtype::bf16);
  return p;
}

const device sm80{arch_id::sm_80, -1, "sm_80 (offline)"};

TEST(FmhaDispatcher, PicksTheUnpaddedHeadDimAndTheSmallerNameOnTies) {
  registry reg;
  reg.add(std::make_shared<fake_fmha>(nvidia_key(256, 64, 32)), "t");
  reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64)), "t");
  reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64, true, true, arch_id::sm_90)), "t");
  fmha_dispatcher d(sm80, reg);
  auto ranked = d.ranked(problem());
  ASSERT_EQ(ranked.size(), 2u);  // the sm_90 kernel is not for this device
  EXPECT_EQ(ranked[0].first->key().sig.hdim_q, 128);
  EXPECT_LT(ranked[0].second, ranked[1].second);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(d.select(problem()).kernel->name(), ranked[0].first->name());
  // hdim 80 (ViT) runs on both through padding; 128 pads less.
  EXPECT_EQ(d.select(problem(80)).kernel->key().sig.hdim_q, 128);
}

fmha_key tma_key(int hdim) {
  fmha_key k;
  k.sig.qkv = k.sig.o = dtype::bf16;
  k.sig.hdim_q = k.sig.hdim_v = hdim;
  k.sig.lse = true;
  k.algo.pipe = fmha_pipeline::tma_wgmma_ws;
  k.algo.arch = arch_id::sm_90;
  k.algo.tile = {128, 128, 0, 0, 0, 0};
  k.algo.warps0 = {8, 1, 1};
  k.algo.stages = 2;
  k = dsl::fmha_rules::with_defaults(k);
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << dsl::describe(dsl::validate(k, arch_id::sm_90)).view();
  return k;
}

// On sm_90 the TMA + wgmma kernel ranks above the mma_sync one where it applies; where it
// refuses (a stride TMA cannot address, say) the mma_sync kernel is chosen, and a problem
// with a feature it lacks never reaches it.
TEST(FmhaDispatcher, Sm90PrefersTmaWgmmaAndFallsBackToMmaSync) {
  const device sm90{arch_id::sm_90, -1, "sm_90 (offline)"};
  fmha_problem llama = problem();
  llama.sizes(4, 4096, 4096);  // the fake keys below are unmasked
  EXPECT_LT(fmha_estimate_us(tma_key(128), llama.normalized()),
            fmha_estimate_us(nvidia_key(128, 64, 64, true, true, arch_id::sm_90), llama.normalized()));
  {
    registry reg;
    reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64, true, true, arch_id::sm_90)), "t");
    reg.add(std::make_shared<fake_fmha>(tma_key(128)), "t");
    fmha_dispatcher d(sm90, reg);
    auto big = d.select(llama);
    ASSERT_TRUE(big) << big.explain();
    EXPECT_EQ(big.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws);
    auto padded = d.select(problem(80));
    ASSERT_TRUE(padded) << padded.explain();
    EXPECT_EQ(padded.kernel->key().algo.pipe, fmha_pipeline::tma_wgmma_ws);  // padded head dim
    fmha_problem capped = problem();
    capped.logits_soft_cap(30.0f);
    EXPECT_FALSE(d.select(capped));  // neither fake kernel computes a soft-cap
  }
  registry reg;
  reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64, true, true, arch_id::sm_90)), "t");
  reg.add(std::make_shared<fake_fmha>(tma_key(128), "Q: TMA needs strides that are positive multiples of 16 bytes"),
          "t");
  fmha_dispatcher d(sm90, reg);
  auto sel = d.select(llama, nullptr, true);
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel.kernel->key().algo.pipe, fmha_pipeline::mma_sync);
}

TEST(FmhaDispatcher, EveryRefusalHasAReason) {
  registry reg;
  reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64, false)), "t");
  fmha_dispatcher d(sm80, reg);
  auto why = [&](const fmha_problem& p, const fmha_args* a = nullptr) {
    auto sel = d.select(p, a);
    EXPECT_FALSE(sel);
    return sel.rejected.empty() ? std::string("<none>") : sel.rejected[0].reason;
  };
  EXPECT_EQ(why(problem(64)), "hdim_q = 64 is smaller than the kernel's 128 and the kernel does not pad it");
  EXPECT_EQ(why(problem(256)), "hdim_q = 256 is larger than the kernel's 128");
  EXPECT_EQ(why(problem().causal()), "mask is none, the problem's is top_left");
  EXPECT_EQ(why(problem().alibi()), "bias is none, the problem's is alibi");
  EXPECT_EQ(why(problem().logits_soft_cap(30.0f)), "has no the logit soft-cap, the problem needs it");
  EXPECT_EQ(why(problem().with_sinks()), "has no sinks, the problem needs it");
  EXPECT_EQ(why(problem().dtype(dtype::fp16)), "Q/K/V dtype is bf16, the problem's is fp16");
  EXPECT_EQ(why(problem().varlen({3, 4}, {5, 6})), "mode is batch, the problem's is group");
  fmha_problem strided = problem();
  strided.q_strides = {0, 32 * 128 + 4, 128};
  EXPECT_EQ(why(strided), "seq stride of Q = 4100 elements (8200 bytes) is not a multiple of the kernel's 16-byte "
                          "access width");
  fmha_args misaligned;
  misaligned.q = misaligned.k = misaligned.v = reinterpret_cast<const void*>(std::uintptr_t{4096});
  misaligned.o = reinterpret_cast<void*>(std::uintptr_t{4104});
  EXPECT_EQ(why(problem(), &misaligned), "pointer O = 0x1008 is not aligned to the kernel's 16-byte access width");
  EXPECT_EQ(d.select(problem().sizes(0, 1, 1)).explain(), "invalid attention problem: batch = 0 must be positive");

  registry lse_reg;
  lse_reg.add(std::make_shared<fake_fmha>(nvidia_key(128, 64, 64, true, false)), "t");
  fmha_dispatcher no_lse(sm80, lse_reg);
  EXPECT_TRUE(no_lse.select(problem()));
  auto sel = no_lse.select(problem().return_lse());
  ASSERT_FALSE(sel);
  EXPECT_EQ(sel.rejected[0].reason, "cannot write the LSE the problem asks for");
}

// The bias is read element by element: rows as long as an odd key count are fine (the
// H100 run of 2026-11-23 found them refused), only a pointer off its element is not.
TEST(FmhaDispatcher, AnElementwiseBiasTakesAnyStride) {
  fmha_key k = nvidia_key(128, 64, 64);
  k.sig.bias = fmha_bias::elementwise;
  registry reg;
  reg.add(std::make_shared<fake_fmha>(k), "t");
  fmha_dispatcher d(sm80, reg);
  // 258-byte rows, heads and batches: none a multiple of 16 bytes.
  fmha_problem p = problem().sizes(2, 127, 129).elementwise_bias(true, true, {32 * 127 * 129, 129, 127 * 129});
  EXPECT_TRUE(d.select(p)) << d.select(p).explain();
  fmha_args a;
  a.q = a.k = a.v = reinterpret_cast<const void*>(std::uintptr_t{4096});
  a.o = reinterpret_cast<void*>(std::uintptr_t{8192});
  a.bias = reinterpret_cast<const void*>(std::uintptr_t{4096 + 6});  // element-aligned, not 16-byte
  EXPECT_TRUE(d.select(p, &a)) << d.select(p, &a).explain();
  a.bias = reinterpret_cast<const void*>(std::uintptr_t{4096 + 1});
  auto sel = d.select(p, &a);
  ASSERT_FALSE(sel);
  EXPECT_EQ(sel.rejected[0].reason, "pointer bias = 0x1001 is not aligned to its 2-byte element");
}

TEST(FmhaDispatcher, UnpaddedSequencesAndKernelRefusals) {
  fmha_key k = nvidia_key(64, 64, 64);
  k.algo.pad_s = k.algo.pad_sk = tristate::no;
  registry reg;
  reg.add(std::make_shared<fake_fmha>(k), "t");
  reg.add(std::make_shared<fake_fmha>(nvidia_key(64, 128, 64), "needs a GPU with more shared memory"), "t");
  fmha_dispatcher d(sm80, reg);
  EXPECT_EQ(d.select(problem(64)).kernel->key(), k);
  auto sel = d.select(problem(64).sizes(2, 100, 512));
  ASSERT_FALSE(sel);
  ASSERT_EQ(sel.rejected.size(), 2u);
  // The closest candidate (it passed every generic check) comes first.
  EXPECT_EQ(sel.rejected[0].reason, "needs a GPU with more shared memory");
  EXPECT_EQ(sel.rejected[1].reason, "seqlen_q = 100 (sequence 0) is not a multiple of tile m0 = 64 and the kernel does "
                                    "not pad query rows");
  const std::string text = sel.explain();
  EXPECT_NE(text.find("no registered attention kernel can run this problem; the 2 closest of 2 candidates:"),
            std::string::npos) << text;
  EXPECT_FALSE(d.run(problem(64).sizes(2, 100, 512), fmha_args{}).is_ok());
}

TEST(FmhaDispatcher, HostKernelsCoverEverySignature) {
  fmha_dispatcher d(device::host());
  for (auto dt : {dtype::fp16, dtype::bf16, dtype::fp32})
    for (auto mask : {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right, fmha_mask::generic})
      for (int f = 0; f < 8; ++f) {
        fmha_problem p;
        p.sizes(1, 7, 9).heads(4, 2).head_dims(24, 40).dtype(dt).causal(mask);
        if (f & 1) p.logits_soft_cap(20.0f);
        if (f & 2) p.with_sinks();
        if (f & 4) p.alibi();
        if (f % 3 == 0) p.varlen({3, 4}, {5, 4});
        if (f == 5) p.elementwise_bias();
        auto sel = d.select(p);
        ASSERT_TRUE(sel) << sel.explain();
        EXPECT_EQ(sel.kernel->arch(), arch_id::host);
        auto s = sel.kernel->key().sig;
        s.lse = false;  // the host kernels can all write it
        s.hdim_q = s.hdim_v = 0;
        auto want = p.signature();
        want.hdim_q = want.hdim_v = 0;
        EXPECT_EQ(s, want) << sel.kernel->name();
      }
}

TEST(FmhaDispatcher, NoKernelForAnArchSaysSo) {
  registry empty;
  fmha_dispatcher d(sm80, empty);
  // The first line; the tiers' notes follow it (in a program linked with kdecl::all,
  // "learned model: none for sm_80 ...").
  const auto text = d.select(problem()).explain();
  EXPECT_EQ(text.substr(0, text.find('\n')), "no attention kernel is registered for this device's arch");
}

}  // namespace
}  // namespace kdecl
