// fmha_problem: defaults, normalization, every validation message, flops and bytes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/fmha/fmha_tensor_elements.hpp"

namespace kdecl {
namespace {

fmha_problem llama() {  // Llama 3 8B attention: 32 query heads over 8 K/V heads, head dim 128
  fmha_problem p;
  p.sizes(2, 100, 300).heads(32, 8).head_dim(128).dtype(dtype::bf16);
  return p;
}

std::string error_of(const fmha_problem& p) { return p.validate().value_or("valid"); }

TEST(FmhaProblem, DefaultsArePackedBshd) {
  auto p = llama().return_lse().normalized();
  EXPECT_EQ(error_of(p), "valid");
  EXPECT_EQ(p.q_strides, (fmha_strides{100 * 32 * 128, 32 * 128, 128}));
  EXPECT_EQ(p.k_strides, (fmha_strides{300 * 8 * 128, 8 * 128, 128}));
  EXPECT_EQ(p.o_strides, (fmha_strides{100 * 32 * 128, 32 * 128, 128}));
  EXPECT_EQ(p.lse_head_stride, 100);
  EXPECT_EQ(p.lse_batch_stride, 3200);
  EXPECT_FLOAT_EQ(p.effective_scale(), 1.0f / std::sqrt(128.0f));
  EXPECT_EQ(p.signature().mode, fmha_mode::batch);
  EXPECT_TRUE(p.signature().lse);
}

TEST(FmhaProblem, BhsdThroughStrides) {
  auto p = llama().bhsd();
  EXPECT_EQ(p.q_strides, (fmha_strides{32 * 100 * 128, 128, 100 * 128}));
  EXPECT_EQ(p.v_strides, (fmha_strides{8 * 300 * 128, 128, 300 * 128}));
  EXPECT_EQ(error_of(p), "valid");
  EXPECT_EQ(p.normalized().q_strides, p.q_strides);
}

TEST(FmhaProblem, VarlenSetsOffsetsAndLongestLengths) {
  fmha_problem p;
  p.heads(8, 8).head_dim(64).varlen({5, 0, 17}, {7, 3, 0});
  EXPECT_EQ(p.batch, 3);
  EXPECT_EQ(p.cu_seqlens_q, (std::vector<std::int32_t>{0, 5, 5, 22}));
  EXPECT_EQ(p.cu_seqlens_kv, (std::vector<std::int32_t>{0, 7, 10, 10}));
  EXPECT_EQ(p.seqlen_q, 17);
  EXPECT_EQ(p.seqlen_kv, 7);
  EXPECT_EQ(p.total_q(), 22);
  EXPECT_EQ(p.seqlen_kv_of(2), 0);
  EXPECT_EQ(error_of(p), "valid");
  EXPECT_EQ(p.signature().mode, fmha_mode::group);
  auto n = p.return_lse().normalized();
  EXPECT_EQ(n.q_strides.batch, 0);  // unused in group mode
  EXPECT_EQ(n.lse_head_stride, 22);
}

TEST(FmhaProblem, EveryMessageNamesTheValueAndRule) {
  EXPECT_EQ(error_of(llama().sizes(0, 1, 1)), "batch = 0 must be positive");
  EXPECT_EQ(error_of(llama().heads(0, 8)), "heads_q = 0 must be positive");
  EXPECT_EQ(error_of(llama().heads(32, 0)), "heads_kv = 0 must be positive");
  EXPECT_EQ(error_of(llama().heads(12, 5)),
            "heads_q = 12 is not a multiple of heads_kv = 5 (each K/V head serves heads_q / heads_kv query heads)");
  EXPECT_EQ(error_of(llama().head_dims(0, 64)),
            "hdim_q = 0 is outside 1..256 (the largest head dim kdecl's attention supports)");
  EXPECT_EQ(error_of(llama().head_dims(128, 320)),
            "hdim_v = 320 is outside 1..256 (the largest head dim kdecl's attention supports)");
  EXPECT_EQ(error_of(llama().dtype(dtype::fp8)),
            "dtype of Q, K and V is fp8; attention takes fp16, bf16 or fp32 (fp8 is not supported yet)");
  EXPECT_EQ(error_of(llama().dtypes(dtype::bf16, dtype::fp32)), "dtype of O (fp32) must equal that of Q, K and V (bf16)");
  EXPECT_EQ(error_of(llama().sizes(2, -1, 3)), "seqlen_q = -1 must not be negative");
  EXPECT_EQ(error_of(llama().sizes(2, 1, -3)), "seqlen_kv = -3 must not be negative");

  auto strided = llama();
  strided.k_strides.seq = -4;
  EXPECT_EQ(error_of(strided), "seq stride of K = -4 must not be negative (0 means packed)");
  EXPECT_EQ(error_of(llama().return_lse(true, -1, 0)),
            "LSE strides (batch -1, head 0) must not be negative (0 means packed)");
  auto overlapping = llama();
  overlapping.o_strides = {0, 128, 128};  // seq and head rows collide
  EXPECT_EQ(error_of(overlapping),
            "strides of O (batch 409600, seq 128, head 128) make two (sequence, head) rows of hdim_v = 128 elements "
            "overlap; the output needs disjoint rows");
  EXPECT_EQ(error_of(llama().return_lse(true, 0, 50)), "LSE strides (batch 1600, head 50) make rows of 100 values overlap");

  EXPECT_EQ(error_of(llama().causal().sliding_window(128, 0).causal(fmha_mask::bottom_right)),
            "a window (left 128, right 0) needs the generic (sliding-window) mask, not bottom_right");
  auto bias_strides = llama();
  bias_strides.bias_strides.seq = 300;
  EXPECT_EQ(error_of(bias_strides), "bias strides are set but the bias is none, not elementwise");
  EXPECT_EQ(error_of(llama().softmax_scale(std::numeric_limits<float>::infinity())), "scale = inf is not finite");
  EXPECT_EQ(error_of(llama().logits_soft_cap(-1.0f)), "soft_cap = -1 must be positive and finite (0 turns it off)");
}

TEST(FmhaProblem, GroupModeMessages) {
  fmha_problem p;
  p.heads(4, 2).head_dim(64);
  EXPECT_EQ(error_of(fmha_problem(p).varlen_offsets({0, 5, 3}, {0, 1, 2})),
            "cu_seqlens_q[2] = 3 is smaller than cu_seqlens_q[1] = 5 (offsets must not decrease: a length is negative)");
  EXPECT_EQ(error_of(fmha_problem(p).varlen_offsets({1, 5}, {0, 1})),
            "cu_seqlens_q[0] = 1 must be 0 (offsets are cumulative from the first sequence)");
  EXPECT_EQ(error_of(fmha_problem(p).varlen_offsets({0, 5}, {0, 1, 2})),
            "cu_seqlens_kv holds 3 offsets; group mode needs batch + 1 = 2");
  EXPECT_EQ(error_of(fmha_problem(p).varlen({4, -2}, {3, 3})),
            "cu_seqlens_q[2] = 2 is smaller than cu_seqlens_q[1] = 4 (offsets must not decrease: a length is negative)");
  auto stale = fmha_problem(p).varlen({4, 6}, {3, 3});
  stale.seqlen_q = 4;
  EXPECT_EQ(error_of(stale), "seqlen_q = 4 and seqlen_kv = 3 must be the longest sequences of cu_seqlens (6 and 3); "
                             "set group mode with varlen()");
  auto batch_stride = fmha_problem(p).varlen({4, 6}, {3, 3});
  batch_stride.q_strides.batch = 1000;
  EXPECT_EQ(error_of(batch_stride), "batch stride of Q = 1000 is unused in group mode (sequences are found through "
                                    "cu_seqlens); leave it 0");
  auto half = p;
  half.sizes(1, 4, 4);
  half.cu_seqlens_kv = {0, 4};
  EXPECT_EQ(error_of(half), "cu_seqlens_kv is set but cu_seqlens_q is empty: group mode needs both");
  EXPECT_EQ(error_of(fmha_problem(p).varlen({2000000000, 2000000000}, {1, 1})),
            "2147483647 query and 2 key rows in total reach 2^31 - 1 (offsets must fit int32)");
}

TEST(FmhaProblem, FlopsCountAttendedPairs) {
  fmha_problem p;
  p.sizes(2, 4, 4).heads(3, 1).head_dims(64, 32);
  const double per_pair = 2.0 * 3 * (64 + 32);
  EXPECT_DOUBLE_EQ(p.flops(), per_pair * 2 * 16);
  EXPECT_DOUBLE_EQ(fmha_problem(p).causal().flops(), per_pair * 2 * 10);               // 1 + 2 + 3 + 4
  EXPECT_DOUBLE_EQ(fmha_problem(p).sizes(2, 2, 4).causal().flops(), per_pair * 2 * 3);  // top-left: 1 + 2
  EXPECT_DOUBLE_EQ(fmha_problem(p).sizes(2, 2, 4).causal(fmha_mask::bottom_right).flops(), per_pair * 2 * 7);  // 3 + 4
  EXPECT_DOUBLE_EQ(fmha_problem(p).sliding_window(1, 0).flops(), per_pair * 2 * 7);  // 1 + 2 + 2 + 2
  EXPECT_DOUBLE_EQ(fmha_problem(p).sizes(2, 4, 2).causal(fmha_mask::bottom_right).flops(), per_pair * 2 * 3);  // 0+0+1+2
  fmha_problem v;
  v.heads(1, 1).head_dim(8).varlen({3, 0, 2}, {3, 5, 0});
  EXPECT_DOUBLE_EQ(v.flops(), 2.0 * 16 * 9);
  EXPECT_DOUBLE_EQ(fmha_problem(v).heads(0, 1).flops(), 0.0);  // invalid: 0
}

TEST(FmhaProblem, BytesCountEachTensorOnce) {
  fmha_problem p;
  p.sizes(2, 10, 20).heads(4, 2).head_dims(64, 32).dtype(dtype::fp16);
  const double q = 2 * 10 * 4 * 64 * 2, kv = 2 * 20 * 2 * (64 + 32) * 2, o = 2 * 10 * 4 * 32 * 2;
  EXPECT_DOUBLE_EQ(p.bytes(), q + kv + o);
  EXPECT_DOUBLE_EQ(fmha_problem(p).return_lse().bytes(), q + kv + o + 2 * 10 * 4 * 4);
  EXPECT_DOUBLE_EQ(fmha_problem(p).elementwise_bias(false, true).bytes(), q + kv + o + 10 * 20 * 4 * 2);
  EXPECT_DOUBLE_EQ(fmha_problem(p).key_bias(true, false).bytes(), q + kv + o + 2 * 20 * 2);  // [B, 1, 1, Skv]
}

// A key bias ([Bb, Hb, 1, Skv], a padding mask) is an elementwise bias whose row stride is 0.
// What each tensor's buffer holds: 1 + its largest offset through the (normalized) strides, in batch and
// group mode, with padded strides; 0 for absent tensors, tensors without rows and invalid problems.
TEST(FmhaProblem, TensorElementsAreTheSpansThroughTheStrides) {
  fmha_problem p;
  p.sizes(3, 10, 20).heads(4, 2).head_dims(64, 32).dtype(dtype::bf16).return_lse();
  fmha_tensor_elements e = tensor_elements(p);  // packed BSHD, LSE [B, H, Sq]
  EXPECT_EQ(e.q, 3 * 10 * 4 * 64);
  EXPECT_EQ(e.k, 3 * 20 * 2 * 64);
  EXPECT_EQ(e.v, 3 * 20 * 2 * 32);
  EXPECT_EQ(e.o, 3 * 10 * 4 * 32);
  EXPECT_EQ(e.lse, 3 * 4 * 10);
  EXPECT_EQ(e.bias, 0);
  // Padded rows of Q (seq stride 300, head stride 70): the last element of the last row.
  fmha_problem padded = p;
  padded.q_strides = {3000, 300, 70};
  EXPECT_EQ(tensor_elements(padded).q, 2 * 3000 + 9 * 300 + 3 * 70 + 64);
  // Group mode: rows of every sequence, the LSE [H, total_q].
  fmha_problem g = p;
  g.varlen({5, 0, 7}, {20, 1, 9});
  e = tensor_elements(g);
  EXPECT_EQ(e.q, 12 * 4 * 64);
  EXPECT_EQ(e.k, 30 * 2 * 64);
  EXPECT_EQ(e.lse, 4 * 12);
  EXPECT_EQ(tensor_elements(fmha_problem(p).elementwise_bias()).bias, 3 * 4 * 10 * 20);
  EXPECT_EQ(tensor_elements(fmha_problem(p).return_lse(false)).lse, 0);
  // No query rows (valid: it was refused once, its packed O strides of 0 taken for overlapping rows):
  // nothing to hold for Q, O and the LSE.
  EXPECT_FALSE(fmha_problem(p).sizes(3, 0, 20).validate()) << fmha_problem(p).sizes(3, 0, 20).validate().value_or("");
  e = tensor_elements(fmha_problem(p).sizes(3, 0, 20));
  EXPECT_EQ(e.q + e.o + e.lse, 0);
  EXPECT_EQ(e.k, 3 * 20 * 2 * 64);
  EXPECT_EQ(tensor_elements(fmha_problem(p).heads(3, 2)).q, 0) << "an invalid problem (3 heads over 2) spans nothing";
}

TEST(FmhaProblem, KeyBiasBroadcastsOneRowOverTheQueries) {
  fmha_problem p;
  p.sizes(3, 10, 20).heads(4, 2).head_dim(64).dtype(dtype::bf16).key_bias();
  const auto n = p.normalized();
  EXPECT_EQ(n.bias, fmha_bias::elementwise);
  EXPECT_FALSE(n.bias_per_row);
  EXPECT_EQ(n.bias_strides, (fmha_strides{20, 0, 0}));  // per batch: one row of 20 keys each
  EXPECT_EQ(fmha_problem(p).key_bias(true, true).normalized().bias_strides, (fmha_strides{80, 0, 20}));
  EXPECT_EQ(fmha_problem(p).key_bias(false, true).normalized().bias_strides, (fmha_strides{0, 0, 20}));
  EXPECT_FALSE(p.validate());
  EXPECT_EQ(fmha_problem(p).key_bias(true, false, {40, 20, 0}).validate().value_or(""),
            "a key bias ([Bb, Hb, 1, Skv]) has one row for every query row: its row stride must be 0 (unset), not 20");
  fmha_problem switched = fmha_problem(p).elementwise_bias();  // elementwise_bias() makes it per row again
  EXPECT_TRUE(switched.bias_per_row);
  EXPECT_EQ(switched.normalized().bias_strides.seq, 20);
  // A buffer for the bias: one row per sequence here, a whole plane per sequence and head below.
  EXPECT_EQ(p.bias_elements(), 3 * 20);
  EXPECT_EQ(fmha_problem(p).elementwise_bias(true, true).bias_elements(), 3 * 4 * 10 * 20);
  EXPECT_EQ(fmha_problem(p).sizes(3, 0, 20).bias_elements(), 0);
  fmha_problem slopes = fmha_problem(p).alibi();  // so does alibi(): the key bias's shape goes with it
  EXPECT_TRUE(slopes.bias_per_row);
  EXPECT_FALSE(slopes.validate()) << slopes.validate().value_or("");
}

TEST(FmhaVisibility, MasksFollowFlashAttentionConventions) {
  fmha_problem p;
  p.sizes(1, 2, 5);
  auto tl = fmha_visibility::of(fmha_problem(p).causal(fmha_mask::top_left), 2, 5);
  EXPECT_TRUE(tl.visible(0, 0));
  EXPECT_FALSE(tl.visible(0, 1));
  auto br = fmha_visibility::of(fmha_problem(p).causal(fmha_mask::bottom_right), 2, 5);
  EXPECT_TRUE(br.visible(0, 3));
  EXPECT_FALSE(br.visible(0, 4));
  EXPECT_TRUE(br.visible(1, 4));
  auto win = fmha_visibility::of(fmha_problem(p).sliding_window(1, 1), 2, 5);
  EXPECT_FALSE(win.visible(1, 2));
  EXPECT_TRUE(win.visible(1, 3));
  EXPECT_TRUE(win.visible(1, 4));
  EXPECT_TRUE(win.visible(0, 4));
  EXPECT_FALSE(win.visible(0, 1));
}

// Found by fuzz_conv_fmha_problem: sizes whose products overflow 64 bits were
// multiplied (bhsd(), normalized(), the overlap check) before anything bounded them.
TEST(FmhaProblem, SizesBeyond64BitSpansAreRefusedWithoutOverflow) {
  fmha_problem p;
  p.sizes(1, 1, 1).heads(std::int64_t{1} << 59, std::int64_t{1} << 59).head_dim(64).dtype(dtype::bf16);
  p.bhsd();  // heads * seqlen * dim saturates rather than overflows
  EXPECT_NE(error_of(p).find("spans"), std::string::npos) << error_of(p);
  EXPECT_NE(error_of(p).find("beyond 64-bit offsets"), std::string::npos) << error_of(p);
  fmha_problem rows;
  rows.sizes(std::int64_t{1} << 40, std::int64_t{1} << 40, 1).heads(1, 1).head_dim(64);
  EXPECT_EQ(error_of(rows), "1208925819614629174706176 query and 1099511627776 key rows in total reach 2^31 - 1 "
                            "(offsets must fit int32)");
}

// Found by fuzz_conv_fmha_problem: a window side near 2^63 overflowed i + offset - side.
TEST(FmhaVisibility, HugeWindowSidesReachEverySequenceWithoutOverflow) {
  fmha_problem p;
  p.sizes(1, 4, 6).heads(1, 1).head_dim(16).sliding_window(std::numeric_limits<std::int64_t>::max(),
                                                           std::numeric_limits<std::int64_t>::max());
  ASSERT_FALSE(p.validate()) << *p.validate();
  EXPECT_EQ(p.attended_pairs(0), 4 * 6);  // the window covers everything
  const auto vis = fmha_visibility::of(p, 4, 6);
  EXPECT_TRUE(vis.visible(0, 5));
  EXPECT_TRUE(vis.visible(3, 0));
}

}  // namespace
}  // namespace kdecl
