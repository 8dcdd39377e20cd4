// The values every attention kernel's argument struct is given (kernels/fmha/fmha_launch_values.hpp):
// the mask band of each mask kind, the scales, and a dense kernel's operands and strides, checked
// on HIP's argument struct (plain C++; CUDA's mma_sync struct has the same fields).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_params.hpp"

namespace kdecl::kernels {
namespace {

struct band_only {
  int window_left = 99, window_right = 99;
  bool top_left = true;
};

band_only band_of(fmha_mask mask, std::int64_t left = -1, std::int64_t right = -1) {
  band_only b;
  set_fmha_mask_band(b, mask, left, right);
  return b;
}

TEST(FmhaLaunchValues, MaskBandOfEveryMaskKind) {
  auto none = band_of(fmha_mask::none, 7, 7);  // a window is ignored without the generic mask
  EXPECT_EQ(none.window_left, -1);
  EXPECT_EQ(none.window_right, -1);
  EXPECT_FALSE(none.top_left);
  auto top_left = band_of(fmha_mask::top_left);
  EXPECT_EQ(top_left.window_left, -1);
  EXPECT_EQ(top_left.window_right, 0);
  EXPECT_TRUE(top_left.top_left);
  auto bottom_right = band_of(fmha_mask::bottom_right);
  EXPECT_EQ(bottom_right.window_left, -1);
  EXPECT_EQ(bottom_right.window_right, 0);
  EXPECT_FALSE(bottom_right.top_left);
  auto window = band_of(fmha_mask::generic, 4096, 0);
  EXPECT_EQ(window.window_left, 4096);
  EXPECT_EQ(window.window_right, 0);
  EXPECT_FALSE(window.top_left);
}

TEST(FmhaLaunchValues, WindowSidesBeyondAnySequenceAreUnbounded) {
  EXPECT_EQ(fmha_window_side(-5), -1);
  EXPECT_EQ(fmha_window_side(0), 0);
  EXPECT_EQ(fmha_window_side(1 << 30), 1 << 30);
  EXPECT_EQ(fmha_window_side((std::int64_t{1} << 30) + 1), -1);
  EXPECT_EQ(fmha_window_side(std::int64_t{1} << 40), -1);  // not truncated to int
  auto b = band_of(fmha_mask::generic, std::int64_t{1} << 33, 3);
  EXPECT_EQ(b.window_left, -1);
  EXPECT_EQ(b.window_right, 3);
}

TEST(FmhaLaunchValues, ScalesWithAndWithoutSoftCap) {
  hip::fmha_hip_params kp{};
  fmha_problem p;
  p.sizes(1, 8, 8).heads(2, 2).head_dim(64).dtype(dtype::bf16);
  set_fmha_mask_and_scales(kp, p);
  EXPECT_FLOAT_EQ(kp.scale, 0.125f);  // 1 / sqrt(64)
  EXPECT_FLOAT_EQ(kp.scale_log2, 0.125f * fmha_log2e);
  EXPECT_EQ(kp.soft_cap, 0.0f);
  EXPECT_EQ(kp.inv_soft_cap, 0.0f);  // off: never 1 / 0
  p.softmax_scale(0.5f).logits_soft_cap(50.0f).causal(fmha_mask::bottom_right);
  set_fmha_mask_and_scales(kp, p);
  EXPECT_FLOAT_EQ(kp.scale, 0.5f);
  EXPECT_FLOAT_EQ(kp.soft_cap, 50.0f);
  EXPECT_FLOAT_EQ(kp.inv_soft_cap, 0.02f);
  EXPECT_EQ(kp.window_right, 0);
  EXPECT_FALSE(kp.top_left);
}

TEST(FmhaLaunchValues, PagedProblemsTakeTheSameMaskAndScales) {
  fmha_paged_problem p;
  p.hdim = 128;
  p.mask = fmha_mask::generic;
  p.window_left = 100;
  p.soft_cap = 30.0f;
  hip::fmha_hip_params kp{};
  set_fmha_mask_and_scales(kp, p);
  EXPECT_EQ(kp.window_left, 100);
  EXPECT_EQ(kp.window_right, -1);
  EXPECT_FLOAT_EQ(kp.scale, 1.0f / std::sqrt(128.0f));
  EXPECT_FLOAT_EQ(kp.inv_soft_cap, 1.0f / 30.0f);
}

TEST(FmhaLaunchValues, DenseParamsCarryOperandsStridesAndSizes) {
  fmha_problem p;
  p.sizes(3, 100, 300).heads(32, 8).head_dims(192, 128).dtype(dtype::bf16).return_lse().alibi(true);
  p = p.normalized();
  int q = 0, k = 0, v = 0, o = 0;
  float lse = 0.0f, slopes = 0.0f, sinks = 0.0f;
  const std::int32_t offsets[2] = {0, 0};
  fmha_args a;
  a.q = &q; a.k = &k; a.v = &v; a.o = &o; a.lse = &lse; a.alibi_slopes = &slopes; a.sinks = &sinks;
  a.cu_seqlens_q = a.cu_seqlens_kv = offsets;  // batch mode: not passed on
  hip::fmha_hip_params kp{};
  set_fmha_dense_params(kp, p, a);
  EXPECT_EQ(kp.q, &q);
  EXPECT_EQ(kp.k, &k);
  EXPECT_EQ(kp.v, &v);
  EXPECT_EQ(kp.o, &o);
  EXPECT_EQ(kp.lse, &lse);
  EXPECT_EQ(kp.alibi_slopes, &slopes);
  EXPECT_EQ(kp.sinks, &sinks);
  EXPECT_EQ(kp.cu_q, nullptr);
  EXPECT_EQ(kp.cu_kv, nullptr);
  EXPECT_EQ(kp.q_seq, p.q_strides.seq);
  EXPECT_EQ(kp.q_head, 192);
  EXPECT_EQ(kp.k_batch, p.k_strides.batch);
  EXPECT_EQ(kp.v_head, 128);
  EXPECT_EQ(kp.o_batch, p.o_strides.batch);
  EXPECT_EQ(kp.lse_head, p.lse_head_stride);
  EXPECT_EQ(kp.lse_batch, p.lse_batch_stride);
  EXPECT_EQ(kp.alibi_batch_stride, 32);  // slopes per batch: [batch, heads_q]
  EXPECT_EQ(kp.seqlen_q, 100);
  EXPECT_EQ(kp.seqlen_kv, 300);
  EXPECT_EQ(kp.hdim_q, 192);
  EXPECT_EQ(kp.hdim_v, 128);
  EXPECT_EQ(kp.group, 4);
  EXPECT_EQ(kp.window_left, -1);
  EXPECT_EQ(kp.window_right, -1);

  p.return_lse(false);
  set_fmha_dense_params(kp, p, a);
  EXPECT_EQ(kp.lse, nullptr);  // not asked for: never written
}

TEST(FmhaLaunchValues, GroupModePassesTheOffsets) {
  fmha_problem p;
  p.varlen({5, 9}, {5, 9}).heads(4, 4).head_dim(64).dtype(dtype::fp16);
  p = p.normalized();
  const std::int32_t cu_q[3] = {0, 5, 14}, cu_kv[3] = {0, 5, 14};
  fmha_args a;
  a.cu_seqlens_q = cu_q;
  a.cu_seqlens_kv = cu_kv;
  hip::fmha_hip_params kp{};
  set_fmha_dense_params(kp, p, a);
  EXPECT_EQ(kp.cu_q, cu_q);
  EXPECT_EQ(kp.cu_kv, cu_kv);
  EXPECT_EQ(kp.group, 1);
}

}  // namespace
}  // namespace kdecl::kernels
