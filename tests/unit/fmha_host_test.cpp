// The shipped host attention kernels against the exact reference, through the
// dispatcher: odd lengths, Sq != Skv, GQA ratios, every mask, bias, soft-cap,
// sinks, fully masked rows, varlen batches with empty sequences, strides.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/fmha/fmha_name.hpp"
#include "kdecl/kernels/fmha/host/fmha_host.hpp"
#include "kdecl/runtime/fmha_check.hpp"

namespace kdecl {
namespace {

fmha_check check(const fmha_problem& p, std::uint64_t seed = 1) {
  fmha_dispatcher d(device::host());
  fmha_check_options o;
  o.seed = seed;
  o.warm_up = false;
  return run_and_check(d, p, o);
}

#define EXPECT_PASSES(problem)                                                                               \
  do {                                                                                                       \
    const auto r = check(problem);                                                                           \
    EXPECT_TRUE(r.passed) << r.kernel << ": O error " << r.o_error << " (tol " << r.o_tolerance << "), LSE error " \
                          << r.lse_error << " (tol " << r.lse_tolerance << ")";                              \
  } while (0)

struct shape {
  std::int64_t sq, skv, hq, hkv, d, dv;
};

TEST(FmhaHost, OddLengthsAndHeadRatiosEveryMask) {
  const shape shapes[] = {{1, 1, 4, 4, 64, 64}, {17, 17, 8, 2, 64, 64}, {17, 127, 8, 1, 128, 128},
                          {127, 17, 4, 1, 40, 72}, {1, 1000, 8, 8, 64, 64}, {1000, 1000, 2, 1, 32, 32}};
  for (const auto& s : shapes)
    for (auto mask : {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right}) {
      fmha_problem p;
      p.sizes(2, s.sq, s.skv).heads(s.hq, s.hkv).head_dims(s.d, s.dv).dtype(dtype::bf16).causal(mask).return_lse();
      SCOPED_TRACE(testing::Message() << "Sq " << s.sq << " Skv " << s.skv << " Hq/Hkv " << s.hq << "/" << s.hkv
                                      << " d " << s.d << "/" << s.dv << " mask " << to_string(mask));
      EXPECT_PASSES(p);
    }
}

TEST(FmhaHost, SlidingWindowsBiasSoftCapSinks) {
  fmha_problem base;
  base.sizes(2, 33, 47).heads(8, 2).head_dim(64).dtype(dtype::fp16).return_lse();
  EXPECT_PASSES(fmha_problem(base).sliding_window(16, 0));
  EXPECT_PASSES(fmha_problem(base).sliding_window(4, 4));
  EXPECT_PASSES(fmha_problem(base).sliding_window(-1, 3));
  EXPECT_PASSES(fmha_problem(base).alibi().causal(fmha_mask::bottom_right));
  EXPECT_PASSES(fmha_problem(base).alibi(true));
  EXPECT_PASSES(fmha_problem(base).elementwise_bias());
  EXPECT_PASSES(fmha_problem(base).elementwise_bias(false, true));
  EXPECT_PASSES(fmha_problem(base).elementwise_bias(false, false).causal());
  EXPECT_PASSES(fmha_problem(base).logits_soft_cap(50.0f).causal(fmha_mask::bottom_right));  // Gemma 2
  EXPECT_PASSES(fmha_problem(base).logits_soft_cap(1.5f).alibi());
  EXPECT_PASSES(fmha_problem(base).with_sinks().sliding_window(8, 0));  // gpt-oss
  EXPECT_PASSES(fmha_problem(base).with_sinks().logits_soft_cap(3.0f).elementwise_bias(true, false));
  EXPECT_PASSES(fmha_problem(base).key_bias(true, false).causal());  // a padding mask, per sequence
  EXPECT_PASSES(fmha_problem(base).key_bias(true, true).logits_soft_cap(5.0f));
}

TEST(FmhaHost, FullyMaskedRowsGiveZerosAndMinusInfinity) {
  fmha_problem p;
  p.sizes(1, 40, 9).heads(4, 4).head_dim(32).dtype(dtype::bf16).causal(fmha_mask::bottom_right).return_lse();
  EXPECT_PASSES(p);                            // rows 0..30 see no key
  EXPECT_PASSES(fmha_problem(p).with_sinks());  // ... and then have LSE = sink
  EXPECT_PASSES(fmha_problem(p).sizes(2, 5, 0).causal(fmha_mask::none));  // no key at all
  EXPECT_PASSES(fmha_problem(p).sliding_window(2, 0));                    // a window: rows 0..30 see nothing
}

TEST(FmhaHost, VarlenBatchesWithEmptySequences) {
  fmha_problem p;
  p.heads(8, 2).head_dim(64).dtype(dtype::fp16).varlen({17, 0, 1, 127, 5}, {17, 9, 0, 300, 5}).return_lse();
  EXPECT_PASSES(p);
  EXPECT_PASSES(fmha_problem(p).causal(fmha_mask::bottom_right));
  EXPECT_PASSES(fmha_problem(p).causal(fmha_mask::top_left).with_sinks());
  EXPECT_PASSES(fmha_problem(p).sliding_window(32, 0).alibi());
  EXPECT_PASSES(fmha_problem(p).elementwise_bias(false, true));
  fmha_problem empty;  // every sequence empty
  empty.heads(2, 2).head_dim(16).dtype(dtype::bf16).varlen({0, 0}, {0, 3});
  EXPECT_PASSES(empty);
}

TEST(FmhaHost, StridesBhsdAndPadded) {
  fmha_problem p;
  p.sizes(3, 21, 34).heads(4, 2).head_dims(48, 24).dtype(dtype::fp32).causal().return_lse();
  EXPECT_PASSES(fmha_problem(p).bhsd());
  fmha_problem padded = p;  // heads and rows with gaps, LSE with gaps
  padded.strides({21 * 336 + 8, 336, 80}, {34 * 128, 128, 64}, {34 * 136, 136, 64}, {21 * 160, 160, 40});
  padded.return_lse(true, 4 * 32, 32);
  EXPECT_PASSES(padded);
}

TEST(FmhaHost, EveryDtypeAndOddHeadDims) {
  for (auto dt : {dtype::fp16, dtype::bf16, dtype::fp32})
    for (std::int64_t d : {1, 3, 8, 80, 200, 256}) {
      fmha_problem p;
      p.sizes(1, 19, 23).heads(2, 1).head_dims(d, d == 1 ? 256 : d).dtype(dt).causal(fmha_mask::bottom_right).return_lse();
      SCOPED_TRACE(testing::Message() << to_string(dt) << " d " << d);
      EXPECT_PASSES(p);
    }
}

// The host kernel with one fault: the check must catch each.
class faulty_host final : public fmha_instance {
 public:
  enum fault { none, forgets_last_o, o_off, lse_off, forgets_lse };
  faulty_host(const fmha_key& k, fault f) : fmha_instance(k), fault_(f) {}
  std::optional<std::string> why_not(const fmha_problem&, const fmha_args&) const override { return std::nullopt; }
  std::size_t workspace_bytes(const fmha_problem&) const override { return 0; }
  status run(const fmha_problem& p, const fmha_args& a, void*) const override {
    float* lse = a.lse;
    fmha_args args = a;
    if (fault_ == forgets_lse) args.lse = nullptr;
    kernels::host::attention_forward<float>(p, args, {16, 32});
    auto* o = static_cast<float*>(a.o);
    const std::size_t last = std::size_t(p.total_q() * p.heads_q * p.hdim_v - 1);
    if (fault_ == forgets_last_o) std::memset(o + last, 0xFF, sizeof(float));
    if (fault_ == o_off) o[0] += 1e-3f;
    if (fault_ == lse_off) lse[0] += 0.01f;
    return status::ok();
  }

 private:
  fault fault_;
};

TEST(FmhaHost, TheCheckCatchesEveryFault) {
  fmha_problem p;
  p.sizes(1, 13, 11).heads(2, 1).head_dim(8).dtype(dtype::fp32).return_lse();
  fmha_key k;
  k.sig = p.signature();
  k.sig.hdim_q = k.sig.hdim_v = 256;
  k.algo.pipe = fmha_pipeline::host_tiled;
  k.algo.tile = {16, 32, 0, 0, 0, 0};
  k = dsl::fmha_rules::with_defaults(k);
  for (auto f : {faulty_host::none, faulty_host::forgets_last_o, faulty_host::o_off, faulty_host::lse_off,
                 faulty_host::forgets_lse}) {
    registry reg;
    reg.add(std::make_shared<faulty_host>(k, f), "faulty");
    fmha_dispatcher d(device::host(), reg);
    fmha_check_options o;
    o.warm_up = false;
    const auto r = run_and_check(d, p, o);
    EXPECT_EQ(r.passed, f == faulty_host::none) << "fault " << int(f) << ": O error " << r.o_error << ", LSE error "
                                                << r.lse_error;
  }
}

}  // namespace
}  // namespace kdecl

namespace kdecl {
namespace {

// Every shipped attention kernel: a name that parses back to its key, a key valid
// for its arch; every host one against the reference on its own signature.
TEST(FmhaShipped, NamesParseBackAndKeysAreValid) {
  int count = 0;
  for (const auto& e : registry::global().filter([](const registered_kernel& k) { return k.instance->op() == op_kind::fmha; })) {
    const auto& k = static_cast<const fmha_instance&>(*e.instance);
    EXPECT_EQ(parse_fmha_name(k.name()), k.key()) << k.name();
    const auto d = dsl::validate(k.key(), k.arch());
    EXPECT_TRUE(d.ok()) << k.name() << ": " << dsl::describe(d).view();
    ++count;
  }
  EXPECT_GE(count, 288);
}

TEST(FmhaShipped, EveryHostInstanceMatchesTheReference) {
  fmha_dispatcher dispatcher(device::host());
  int checked = 0;
  for (const auto& e : registry::global().filter([](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == arch_id::host;
       })) {
    const auto& key = static_cast<const fmha_instance&>(*e.instance).key();
    if (is_paged_family(key.sig.family)) continue;  // fmha_paged_host_test.cpp checks those
    fmha_problem p;
    p.heads(4, 2).head_dims(40, 24).dtype(key.sig.qkv).causal(key.sig.mask).return_lse();
    if (key.sig.mode == fmha_mode::group) p.varlen({9, 0, 21}, {13, 4, 0});
    else p.sizes(2, 9, 13);
    if (key.sig.mask == fmha_mask::generic) p.sliding_window(5, 1);
    if (key.sig.bias == fmha_bias::alibi) p.alibi();
    if (key.sig.bias == fmha_bias::elementwise) p.elementwise_bias();
    if (key.sig.logits_soft_cap) p.logits_soft_cap(2.0f);
    p.with_sinks(key.sig.sink);
    fmha_check_options o;
    o.kernel = e.instance->name();
    o.seed = 100 + std::uint64_t(checked);
    o.warm_up = false;
    const auto r = run_and_check(dispatcher, p, o);
    EXPECT_TRUE(r.passed) << r.kernel << ": O error " << r.o_error << ", LSE error " << r.lse_error;
    ++checked;
  }
  EXPECT_EQ(checked, 288);
}

}  // namespace
}  // namespace kdecl
