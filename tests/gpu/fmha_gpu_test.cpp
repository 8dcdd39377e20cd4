// The shipped CUDA attention kernels against the exact host reference (label gpu;
// every test skips where no CUDA device exists). Inputs are random, outputs are
// poisoned with NaN first, fp16/bf16 pass at an O error of 1e-2 of the output's
// scale and an LSE error of 1e-3 (reference/fmha_reference.hpp).
//
//   every instance on its own signature, full and padded head dims;
//   lengths 1, 17, 127, 1000, 4099; Sq != Skv; GQA ratios 1, 4, 8;
//   rows that see no key; varlen batches with empty sequences; BHSD and
//   padded strides; the LSE with its own strides.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "kdecl/fmha/fmha_dispatcher.hpp"
#include "kdecl/runtime/fmha_check.hpp"

namespace kdecl {
namespace {

std::optional<device> gpu() {
  for (const auto& d : available_devices())
    if (d.kind() == backend::cuda) return d;
  return std::nullopt;
}

#define REQUIRE_GPU()                                                  \
  const auto dev = gpu();                                              \
  if (!dev) GTEST_SKIP() << "no CUDA device with a kdecl arch table";  \
  const fmha_dispatcher dispatcher(*dev)

fmha_check check(const fmha_dispatcher& d, const fmha_problem& p, const std::string& kernel = "",
                 std::uint64_t seed = 1) {
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

#define EXPECT_PASSES(dispatcher, problem)                  \
  do {                                                      \
    const auto r_ = check(dispatcher, problem);             \
    EXPECT_TRUE(r_.passed) << report(r_);                   \
  } while (0)

// A problem with the kernel's signature: Sq != Skv, GQA 4, odd lengths (group
// mode: with empty sequences), a window where the mask is generic.
fmha_problem problem_for(const fmha_key& k, std::int64_t hdim_q, std::int64_t hdim_v) {
  fmha_problem p;
  p.heads(8, 2).head_dims(hdim_q, hdim_v).dtype(k.sig.qkv).causal(k.sig.mask).return_lse();
  if (k.sig.mode == fmha_mode::group) p.varlen({127, 0, 1, 33, 200}, {129, 7, 0, 40, 131});
  else p.sizes(2, 127, 129);
  if (k.sig.mask == fmha_mask::generic) p.sliding_window(33, 5);
  if (k.sig.bias == fmha_bias::alibi) p.alibi();
  if (k.sig.bias == fmha_bias::elementwise) p.elementwise_bias();
  if (k.sig.logits_soft_cap) p.logits_soft_cap(20.0f);
  p.with_sinks(k.sig.sink);
  return p;
}

TEST(FmhaGpu, EveryShippedInstanceMatchesTheReference) {
  REQUIRE_GPU();
  int checked = 0;
  for (const auto& e : registry::global().filter([&](const registered_kernel& k) {
         return k.instance->op() == op_kind::fmha && k.instance->arch() == dev->arch;
       })) {
    const auto& key = static_cast<const fmha_instance&>(*e.instance).key();
    if (is_paged_family(key.sig.family)) continue;  // fmha_decode_gpu_test.cu checks those
    SCOPED_TRACE(e.instance->name());
    const auto full = check(dispatcher, problem_for(key, key.sig.hdim_q, key.sig.hdim_v), e.instance->name(), 7 + checked);
    EXPECT_TRUE(full.passed) << report(full);
    // Smaller head dims, zero-padded by the kernel (multiples of 8: 16-byte rows).
    const auto padded = check(dispatcher, problem_for(key, key.sig.hdim_q - 24, key.sig.hdim_v - 56), e.instance->name(),
                              1000 + checked);
    EXPECT_TRUE(padded.passed) << report(padded);
    ++checked;
  }
  EXPECT_GE(checked, 48);
}

TEST(FmhaGpu, OddLengthsGqaRatiosAndMasks) {
  REQUIRE_GPU();
  for (std::int64_t len : {1, 17, 127, 1000})
    for (std::int64_t ratio : {1, 4, 8})
      for (auto mask : {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right})
        for (auto dt : {dtype::bf16, dtype::fp16}) {
          fmha_problem p;
          p.sizes(2, len, len == 1 ? 1 : len + 13).heads(8, 8 / ratio).head_dim(dt == dtype::bf16 ? 128 : 64).dtype(dt);
          p.causal(mask).return_lse();
          SCOPED_TRACE(testing::Message() << "len " << len << " ratio " << ratio << " " << to_string(mask) << " "
                                          << to_string(dt));
          EXPECT_PASSES(dispatcher, p);
        }
}

TEST(FmhaGpu, LongSequences) {
  REQUIRE_GPU();
  fmha_problem p;
  p.sizes(1, 4099, 4099).heads(4, 1).head_dim(64).dtype(dtype::bf16).causal(fmha_mask::bottom_right).return_lse();
  EXPECT_PASSES(dispatcher, p);
  fmha_problem q;  // a query chunk against a long cache (Sq != Skv, bottom-right)
  q.sizes(2, 127, 4099).heads(8, 1).head_dim(128).dtype(dtype::fp16).causal(fmha_mask::bottom_right).return_lse();
  EXPECT_PASSES(dispatcher, q);
  EXPECT_PASSES(dispatcher, fmha_problem(q).causal(fmha_mask::none));
}

TEST(FmhaGpu, RowsThatSeeNoKey) {
  REQUIRE_GPU();
  fmha_problem p;  // bottom-right with more queries than keys: the first 191 rows see nothing
  p.sizes(2, 200, 9).heads(8, 2).head_dim(128).dtype(dtype::bf16).causal(fmha_mask::bottom_right).return_lse();
  EXPECT_PASSES(dispatcher, p);
  EXPECT_PASSES(dispatcher, fmha_problem(p).sliding_window(3, 0));
  EXPECT_PASSES(dispatcher, fmha_problem(p).sizes(2, 70, 0).causal(fmha_mask::none));  // no key at all
  EXPECT_PASSES(dispatcher, fmha_problem(p).sliding_window(2, 0).sizes(1, 300, 100));  // rows 0..197 see nothing
}

TEST(FmhaGpu, VarlenBatchesWithEmptySequences) {
  REQUIRE_GPU();
  for (auto mask : {fmha_mask::none, fmha_mask::top_left, fmha_mask::bottom_right}) {
    fmha_problem p;
    p.heads(16, 2).head_dim(128).dtype(dtype::bf16).causal(mask).return_lse();
    p.varlen({17, 0, 1, 1000, 127, 0, 64}, {17, 9, 0, 1000, 300, 0, 128});
    SCOPED_TRACE(to_string(mask));
    EXPECT_PASSES(dispatcher, p);
  }
  fmha_problem all_empty;
  all_empty.heads(4, 4).head_dim(64).dtype(dtype::fp16).varlen({0, 0, 5}, {0, 3, 0}).return_lse();
  EXPECT_PASSES(dispatcher, all_empty);
}

TEST(FmhaGpu, EveryHeadDimThroughPadding) {
  REQUIRE_GPU();
  for (std::int64_t d : {8, 40, 64, 80, 96, 128, 192, 200, 256})
    for (auto dt : {dtype::fp16, dtype::bf16}) {
      fmha_problem p;
      p.sizes(2, 77, 91).heads(6, 3).head_dim(d).dtype(dt).causal(fmha_mask::top_left).return_lse();
      SCOPED_TRACE(testing::Message() << "d " << d << " " << to_string(dt));
      EXPECT_PASSES(dispatcher, p);
    }
  fmha_problem mixed;  // hdim_q != hdim_v (192 / 128, as DeepSeek-style MLA prefill)
  mixed.sizes(1, 65, 65).heads(4, 4).head_dims(192, 128).dtype(dtype::bf16).causal().return_lse();
  EXPECT_PASSES(dispatcher, mixed);
}

TEST(FmhaGpu, StridesAndLse) {
  REQUIRE_GPU();
  fmha_problem p;
  p.sizes(3, 150, 170).heads(8, 4).head_dim(64).dtype(dtype::fp16).causal(fmha_mask::bottom_right);
  EXPECT_PASSES(dispatcher, fmha_problem(p).bhsd().return_lse());
  fmha_problem padded = p;  // gaps between heads and rows (multiples of 8 elements), LSE with gaps
  padded.strides({150 * 600, 600, 72}, {170 * (4 * 64 + 8), 4 * 64 + 8, 64}, {170 * 320, 320, 80}, {150 * 8 * 64, 8 * 64, 64});
  padded.return_lse(true, 8 * 160, 160);
  EXPECT_PASSES(dispatcher, padded);
}

TEST(FmhaGpu, WindowsAndTheDispatcherChoice) {
  REQUIRE_GPU();
  fmha_problem p;
  p.sizes(2, 300, 300).heads(8, 2).head_dim(128).dtype(dtype::bf16).return_lse();
  for (auto [l, r] : {std::pair{64, 0}, {16, 16}, {-1, 8}, {0, 0}}) {
    SCOPED_TRACE(testing::Message() << "window " << l << ", " << r);
    EXPECT_PASSES(dispatcher, fmha_problem(p).sliding_window(l, r));
  }
  // The dispatcher picks a GPU kernel of the device's arch for the Llama 3 8B shape.
  fmha_problem llama;
  llama.sizes(4, 4096, 4096).heads(32, 8).head_dim(128).dtype(dtype::bf16).causal();
  auto sel = dispatcher.select(llama);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->arch(), dev->arch);
  EXPECT_EQ(sel.kernel->key().sig.hdim_q, 128);
}

}  // namespace
}  // namespace kdecl
