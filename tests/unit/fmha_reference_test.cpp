// The attention reference against hand-computed values and against itself
// (GQA = replicated heads, varlen = separate batches, BHSD = BSHD).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kdecl/numeric/element_access.hpp"
#include "kdecl/reference/fmha_reference.hpp"
#include "kdecl/runtime/fmha_check.hpp"

namespace kdecl {
namespace {

constexpr double neg_inf = -std::numeric_limits<double>::infinity();

fmha_args host_args(const fmha_host_inputs& in) {
  fmha_args a;
  a.q = in.q.data();
  a.k = in.k.data();
  a.v = in.v.data();
  a.bias = in.bias.empty() ? nullptr : in.bias.data();
  a.alibi_slopes = in.alibi_slopes.empty() ? nullptr : in.alibi_slopes.data();
  a.sinks = in.sinks.empty() ? nullptr : in.sinks.data();
  return a;
}

// A key bias is the elementwise bias whose rows are all the same: the reference gives the same
// numbers for a [B, 1, 1, Skv] row and for the [B, 1, Sq, Skv] plane that repeats it.
TEST(FmhaReference, KeyBiasIsAPlaneOfEqualRows) {
  fmha_problem keys;
  keys.sizes(2, 5, 7).heads(2, 1).head_dim(4).dtype(dtype::fp32).key_bias(true, false).causal().return_lse();
  fmha_problem plane = fmha_problem(keys).elementwise_bias(true, false);
  std::vector<float> q(2 * 5 * 2 * 4), k(2 * 7 * 4), v(2 * 7 * 4), row(2 * 7), full(2 * 5 * 7);
  for (std::size_t i = 0; i < q.size(); ++i) q[i] = float(int(i * 7 % 11) - 5) / 8.0f;
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = float(int(i * 5 % 13) - 6) / 8.0f;
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = float(int(i * 3 % 7) - 3);
  for (std::size_t i = 0; i < row.size(); ++i) row[i] = i % 3 == 0 ? -1e4f : float(i % 5) / 4.0f;  // padding
  for (int b = 0; b < 2; ++b)
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 7; ++j) full[std::size_t((b * 5 + i) * 7 + j)] = row[std::size_t(b * 7 + j)];
  fmha_args a;
  a.q = q.data();
  a.k = k.data();
  a.v = v.data();
  a.bias = row.data();
  const auto by_row = reference::fmha(keys, a);
  a.bias = full.data();
  const auto by_plane = reference::fmha(plane, a);
  EXPECT_EQ(by_row.o, by_plane.o);
  EXPECT_EQ(by_row.lse, by_plane.lse);
}

// One query, two keys, head dim 1, fp32: every feature by hand.
TEST(FmhaReference, HandComputedRow) {
  fmha_problem p;
  p.sizes(1, 1, 2).heads(1, 1).head_dim(1).dtype(dtype::fp32).softmax_scale(0.5f).return_lse();
  const float q[] = {2.0f}, k[] = {1.0f, 3.0f}, v[] = {10.0f, 20.0f};
  fmha_args a;
  a.q = q;
  a.k = k;
  a.v = v;
  // logits 1 and 3
  auto r = reference::fmha(p, a);
  const double e1 = std::exp(1.0), e3 = std::exp(3.0);
  EXPECT_NEAR(r.o[0], (10 * e1 + 20 * e3) / (e1 + e3), 1e-12);
  EXPECT_NEAR(r.lse[0], std::log(e1 + e3), 1e-12);

  // soft-cap 2: logits 2 tanh(0.5) and 2 tanh(1.5)
  auto capped = reference::fmha(fmha_problem(p).logits_soft_cap(2.0f), a);
  const double c1 = std::exp(2 * std::tanh(0.5)), c3 = std::exp(2 * std::tanh(1.5));
  EXPECT_NEAR(capped.o[0], (10 * c1 + 20 * c3) / (c1 + c3), 1e-12);

  // ALiBi slope 0.5, bottom-right diagonal at key 1: logits 1 - 0.5 and 3
  const float slope[] = {0.5f};
  a.alibi_slopes = slope;
  auto alibi = reference::fmha(fmha_problem(p).alibi(), a);
  const double a1 = std::exp(0.5);
  EXPECT_NEAR(alibi.lse[0], std::log(a1 + e3), 1e-12);

  // a sink of logit 2 joins the denominator only
  const float sink[] = {2.0f};
  a.sinks = sink;
  auto sunk = reference::fmha(fmha_problem(p).with_sinks(), a);
  EXPECT_NEAR(sunk.o[0], (10 * e1 + 20 * e3) / (e1 + e3 + std::exp(2.0)), 1e-12);
  EXPECT_NEAR(sunk.lse[0], std::log(e1 + e3 + std::exp(2.0)), 1e-12);

  // top-left causal: query 0 sees key 0 only
  auto causal = reference::fmha(fmha_problem(p).causal(), a);
  EXPECT_NEAR(causal.o[0], 10.0, 1e-12);
  EXPECT_NEAR(causal.lse[0], 1.0, 1e-12);
}

TEST(FmhaReference, RowsThatSeeNothingGiveZerosAndMinusInfinity) {
  fmha_problem p;
  // bottom-right causal with more queries than keys: the first 3 of 5 rows see no key
  p.sizes(1, 5, 2).heads(2, 1).head_dim(8).dtype(dtype::bf16).causal(fmha_mask::bottom_right).return_lse();
  const auto in = make_fmha_inputs(p.normalized(), 3);
  auto r = reference::fmha(p, host_args(in));
  for (int row = 0; row < 5; ++row)
    for (int h = 0; h < 2; ++h) {
      const double lse = r.lse[std::size_t(row * 2 + h)];
      if (row < 3) {
        EXPECT_EQ(lse, neg_inf);
        for (int d = 0; d < 8; ++d) EXPECT_EQ(r.o[std::size_t((row * 2 + h) * 8 + d)], 0.0);
      } else {
        EXPECT_TRUE(std::isfinite(lse));
      }
    }
  // With sinks the same rows have LSE = the sink and still O = 0.
  auto sunk_problem = fmha_problem(p).with_sinks();
  const auto sunk_in = make_fmha_inputs(sunk_problem.normalized(), 3);
  auto s = reference::fmha(sunk_problem, host_args(sunk_in));
  EXPECT_NEAR(s.lse[1], double(sunk_in.sinks[1]), 1e-12);
  EXPECT_EQ(s.o[8], 0.0);
  // No key at all.
  auto empty = reference::fmha(fmha_problem(p).sizes(1, 3, 0), host_args(in));
  for (double x : empty.lse) EXPECT_EQ(x, neg_inf);
}

TEST(FmhaReference, GroupedQueryAttentionEqualsReplicatedHeads) {
  fmha_problem gqa;
  gqa.sizes(2, 7, 9).heads(8, 2).head_dims(16, 24).dtype(dtype::fp16).causal(fmha_mask::bottom_right).return_lse();
  const fmha_problem g = gqa.normalized();
  const auto in = make_fmha_inputs(g, 11);
  const auto r = reference::fmha(g, host_args(in));
  // The same K/V replicated to 8 heads (head h holds K/V head h / 4).
  fmha_problem mha = gqa;
  mha.heads(8, 8);
  const fmha_problem m = mha.normalized();
  fmha_host_inputs rep = in;
  rep.k.assign(std::size_t(2 * 9 * 8 * 16) * 2, 0);
  rep.v.assign(std::size_t(2 * 9 * 8 * 24) * 2, 0);
  for (int b = 0; b < 2; ++b)
    for (int j = 0; j < 9; ++j)
      for (int h = 0; h < 8; ++h) {
        for (int d = 0; d < 16; ++d)
          numeric::store_from_double(rep.k.data(), dtype::fp16, std::size_t(((b * 9 + j) * 8 + h) * 16 + d),
                                     numeric::load_as_double(in.k.data(), dtype::fp16,
                                                             std::size_t(((b * 9 + j) * 2 + h / 4) * 16 + d)));
        for (int d = 0; d < 24; ++d)
          numeric::store_from_double(rep.v.data(), dtype::fp16, std::size_t(((b * 9 + j) * 8 + h) * 24 + d),
                                     numeric::load_as_double(in.v.data(), dtype::fp16,
                                                             std::size_t(((b * 9 + j) * 2 + h / 4) * 24 + d)));
      }
  const auto rm = reference::fmha(m, host_args(rep));
  EXPECT_EQ(r.o, rm.o);
  EXPECT_EQ(r.lse, rm.lse);
}

TEST(FmhaReference, VarlenEqualsSeparateBatches) {
  fmha_problem v;
  v.heads(4, 2).head_dim(32).dtype(dtype::fp32).varlen({5, 0, 3}, {4, 6, 0}).causal(fmha_mask::bottom_right).return_lse();
  const fmha_problem n = v.normalized();
  const auto in = make_fmha_inputs(n, 5);
  const auto r = reference::fmha(n, host_args(in));
  // Sequence 0 alone in batch mode: the first 5 rows and 4 keys of the packed tensors.
  fmha_problem first;
  first.sizes(1, 5, 4).heads(4, 2).head_dim(32).dtype(dtype::fp32).causal(fmha_mask::bottom_right).return_lse();
  const auto r0 = reference::fmha(first, host_args(in));
  for (std::size_t i = 0; i < r0.o.size(); ++i) EXPECT_EQ(r.o[i], r0.o[i]);
  for (std::size_t i = 0; i < r0.lse.size(); ++i) EXPECT_EQ(r.lse[i], r0.lse[i]);
  // Sequence 2 has queries but no keys: zeros and -inf.
  for (int row = 5; row < 8; ++row)
    for (int h = 0; h < 4; ++h) EXPECT_EQ(r.lse[std::size_t(row * 4 + h)], neg_inf);
}

TEST(FmhaReference, BhsdEqualsBshdOnTheSameValues) {
  fmha_problem p;
  p.sizes(2, 6, 5).heads(3, 3).head_dim(8).dtype(dtype::fp32).return_lse();
  const fmha_problem bshd = p.normalized();
  const auto in = make_fmha_inputs(bshd, 9);
  const auto r = reference::fmha(bshd, host_args(in));
  fmha_problem t = fmha_problem(p).bhsd();
  // Transpose Q, K and V into BHSD.
  fmha_host_inputs tin = in;
  auto transpose = [&](const std::vector<unsigned char>& src, std::vector<unsigned char>& dst, int s, int h, int d) {
    for (int b = 0; b < 2; ++b)
      for (int i = 0; i < s; ++i)
        for (int hh = 0; hh < h; ++hh)
          for (int e = 0; e < d; ++e)
            numeric::store_from_double(dst.data(), dtype::fp32, std::size_t(((b * h + hh) * s + i) * d + e),
                                       numeric::load_as_double(src.data(), dtype::fp32,
                                                               std::size_t(((b * s + i) * h + hh) * d + e)));
  };
  transpose(in.q, tin.q, 6, 3, 8);
  transpose(in.k, tin.k, 5, 3, 8);
  transpose(in.v, tin.v, 5, 3, 8);
  const auto rt = reference::fmha(t, host_args(tin));
  EXPECT_EQ(r.o, rt.o);
  EXPECT_EQ(r.lse, rt.lse);
}

TEST(FmhaReference, CompareCatchesNanAndMisplacedInfinity) {
  reference::fmha_result ref{{1.0, 2.0}, {0.5, neg_inf}};
  std::vector<double> o{1.0, 2.0}, lse{0.5, neg_inf};
  auto e = reference::compare(ref, o, lse);
  EXPECT_EQ(e.o, 0.0);
  EXPECT_EQ(e.lse, 0.0);
  o[1] = std::nan("");
  EXPECT_TRUE(std::isnan(reference::compare(ref, o, lse).o));
  o[1] = 2.0;
  lse[1] = 0.0;
  EXPECT_TRUE(std::isinf(reference::compare(ref, o, lse).lse));
}

}  // namespace
}  // namespace kdecl
