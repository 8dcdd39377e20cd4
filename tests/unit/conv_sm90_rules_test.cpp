// The sm_90 convolutions (forward, backward-data, backward-weight) on the TMA + wgmma pipeline, as far as a machine
// without a GPU sees it: its arch-table offer (directions, schedulers, vector
// widths) with the messages the rules give, and the problem rules it shares with
// the sm_80 forward kernel (kernels/conv/implicit_gemm_fwd_problem.hpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"

namespace kdecl {
namespace {

grouped_conv_key wgmma_key() {
  grouped_conv_key k;
  k.sig.dir = conv_direction::fwd;
  k.sig.ndim = 2;
  k.sig.lay = conv_layout::nhwgc;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = dtype::bf16;
  k.sig.acc = dtype::fp32;
  k.algo.tile = {128, 128, 64};
  k.algo.warps = {8, 1, 1};
  k.algo.warp_tile = {16, 128, 16};
  k.algo.pipe = pipeline::tma_wgmma;
  k.algo.stages = 6;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = 8;
  k.algo.arch = arch_id::sm_90;
  return k;
}

std::string message_of(const grouped_conv_key& k) { return std::string(dsl::describe(dsl::validate(k, arch_id::sm_90)).view()); }

TEST(ConvSm90Rules, TheTmaPipelineBuildsForwardConvolutions) {
  EXPECT_TRUE(dsl::validate(wgmma_key(), arch_id::sm_90).ok()) << message_of(wgmma_key());
  auto k = wgmma_key();
  k.sig.ndim = 3;
  k.sig.lay = conv_layout::ndhwgc;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << message_of(k);
  // Not on sm_80: its tables have no tma_wgmma pipeline at all.
  EXPECT_FALSE(dsl::validate(wgmma_key(), arch_id::sm_80).ok());
  // Its registered name parses back to the key.
  EXPECT_EQ(kernel_name(wgmma_key()),
            "conv_fwd_2d_bf16_nhwgc_tma_wgmma_cshuffle_intrawave_128x128x64_8x1x1_16x128x16_s6_v8x8x8_sm_90");
  EXPECT_EQ(parse_conv_name(kernel_name(wgmma_key())), wgmma_key());
  // Backward-data too (per stride phase, as forward convolutions: conv_bwd_data_sm90.cuh).
  auto bwd_data = wgmma_key();
  bwd_data.sig.dir = conv_direction::bwd_data;
  EXPECT_TRUE(dsl::validate(bwd_data, arch_id::sm_90).ok()) << message_of(bwd_data);
  // And backward-weight (the crr GEMM of dY and the gathered input: conv_bwd_weight_sm90.cuh).
  auto bwd_weight = wgmma_key();
  bwd_weight.sig.dir = conv_direction::bwd_weight;
  EXPECT_TRUE(dsl::validate(bwd_weight, arch_id::sm_90).ok()) << message_of(bwd_weight);
  auto narrow_dy = bwd_weight;  // dY is gathered too: 16-byte vectors
  narrow_dy.algo.vector_out = 4;
  EXPECT_EQ(dsl::validate(narrow_dy, arch_id::sm_90).r, dsl::rule::conv_vector_bytes_not_offered_by_pipeline);
}

TEST(ConvSm90Rules, RefusalsNameTheValueAndTheRule) {
  // pingpong (two consumer warpgroups, a tile each) is built on sm_90, with the GEMM's rule on its warps.
  auto pingpong = wgmma_key();
  pingpong.algo.sched = scheduler::pingpong;
  pingpong.algo.warps = {4, 1, 1};
  for (auto dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight}) {
    pingpong.sig.dir = dir;
    EXPECT_TRUE(dsl::validate(pingpong, arch_id::sm_90).ok()) << message_of(pingpong);
  }
  auto eight_warps = pingpong;
  eight_warps.algo.warps = {8, 1, 1};
  EXPECT_EQ(dsl::validate(eight_warps, arch_id::sm_90).r, dsl::rule::pingpong_needs_one_consumer_warpgroup);
  EXPECT_NE(message_of(eight_warps).find("pingpong scheduler needs warps 4x1x1"), std::string::npos)
      << message_of(eight_warps);
  // interwave (consumers alternating k-blocks within a tile) is an AMD schedule: no convolution builds it here.
  auto interwave = wgmma_key();
  interwave.algo.sched = scheduler::interwave;
  EXPECT_FALSE(dsl::validate(interwave, arch_id::sm_90).ok());
  EXPECT_NE(message_of(interwave).find("scheduler interwave not offered by tma_wgmma on sm_90"), std::string::npos)
      << message_of(interwave);

  auto narrow = wgmma_key();  // 8-byte gathers: TMA's pipeline issues 16-byte accesses only
  narrow.algo.vector_in = 4;
  EXPECT_EQ(dsl::validate(narrow, arch_id::sm_90).r, dsl::rule::conv_vector_bytes_not_offered_by_pipeline);

  auto fp32 = wgmma_key();
  fp32.sig.in = fp32.sig.wei = fp32.sig.out = fp32.sig.compute = dtype::fp32;
  EXPECT_FALSE(dsl::validate(fp32, arch_id::sm_90).ok());
}

// The stride1 specialization (halo tiles, kernels/conv/halo_tiles.hpp): forward and backward-data,
// 2-D and 3-D, one group per GEMM; anything else names where it is built.
TEST(ConvSm90Rules, Stride1IsBuiltForwardAndBackwardDataIn2DAnd3D) {
  auto k = wgmma_key();
  k.sig.spec = conv_specialization::stride1;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << message_of(k);
  EXPECT_EQ(kernel_name(k),
            "conv_fwd_2d_bf16_nhwgc_stride1_tma_wgmma_cshuffle_intrawave_128x128x64_8x1x1_16x128x16_s6_v8x8x8_sm_90");
  EXPECT_EQ(parse_conv_name(kernel_name(k)), k);
  auto volumetric = k;
  volumetric.sig.ndim = 3;
  volumetric.sig.lay = conv_layout::ndhwgc;
  EXPECT_TRUE(dsl::validate(volumetric, arch_id::sm_90).ok()) << message_of(volumetric);
  auto bwd_data = k;
  bwd_data.sig.dir = conv_direction::bwd_data;
  EXPECT_TRUE(dsl::validate(bwd_data, arch_id::sm_90).ok()) << message_of(bwd_data);
  auto bwd_weight = k;
  bwd_weight.sig.dir = conv_direction::bwd_weight;
  EXPECT_EQ(dsl::validate(bwd_weight, arch_id::sm_90).r, dsl::rule::conv_stride1_not_offered_for_signature);
  EXPECT_NE(message_of(bwd_weight).find("specialization stride1 with conv bwd_weight, 2-D, groups_to_merge 1: "
                                        "tma_wgmma on sm_90 builds it for fwd, bwd_data in 2-D, 3-D, groups_to_merge 1 "
                                        "only"),
            std::string::npos)
      << message_of(bwd_weight);
  auto linear = k;
  linear.sig.ndim = 1;
  linear.sig.lay = conv_layout::nwgc;
  EXPECT_EQ(dsl::validate(linear, arch_id::sm_90).r, dsl::rule::conv_stride1_not_offered_for_signature);
  auto merged = k;
  merged.algo.groups_to_merge = 2;
  EXPECT_EQ(dsl::validate(merged, arch_id::sm_90).r, dsl::rule::conv_stride1_not_offered_for_signature);
  auto on_ampere = k;  // cp_async has no stride1 kernels
  on_ampere.algo.pipe = pipeline::cp_async;
  on_ampere.algo.arch = arch_id::sm_80;
  EXPECT_FALSE(dsl::validate(on_ampere, arch_id::sm_80).ok());
}

// The stride1_rows specialization: 2-D forward and backward-data, one group per GEMM (the tables);
// tiles of 64, 128 or 192 pixels x 64 x 64, pingpong, the direct epilogue (the kernel's rules).
TEST(ConvSm90Rules, Stride1RowsIsBuiltForwardAndBackwardDataIn2D) {
  auto k = wgmma_key();
  k.sig.spec = conv_specialization::stride1_rows;
  k.algo.tile = {192, 64, 64};
  k.algo.warps = {4, 1, 1};
  k.algo.warp_tile = {16, 64, 16};
  k.algo.sched = scheduler::pingpong;
  k.algo.epi = epilogue::direct;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << message_of(k);
  EXPECT_EQ(kernel_name(k),
            "conv_fwd_2d_bf16_nhwgc_stride1_rows_tma_wgmma_direct_pingpong_192x64x64_4x1x1_16x64x16_s6_v8x8x8_sm_90");
  EXPECT_EQ(parse_conv_name(kernel_name(k)), k);
  auto bwd_data = k;
  bwd_data.sig.dir = conv_direction::bwd_data;
  EXPECT_TRUE(dsl::validate(bwd_data, arch_id::sm_90).ok()) << message_of(bwd_data);
  auto bwd_weight = k;
  bwd_weight.sig.dir = conv_direction::bwd_weight;
  EXPECT_EQ(dsl::validate(bwd_weight, arch_id::sm_90).r, dsl::rule::conv_stride1_rows_not_offered_for_signature);
  EXPECT_NE(message_of(bwd_weight).find("specialization stride1_rows with conv bwd_weight, 2-D, groups_to_merge 1: "
                                        "tma_wgmma on sm_90 builds it for fwd, bwd_data in 2-D, groups_to_merge 1 only"),
            std::string::npos)
      << message_of(bwd_weight);
  auto volumetric = k;
  volumetric.sig.ndim = 3;
  volumetric.sig.lay = conv_layout::ndhwgc;
  EXPECT_EQ(dsl::validate(volumetric, arch_id::sm_90).r, dsl::rule::conv_stride1_rows_not_offered_for_signature);
  // The kernel's shapes (the tables' stride1_rows fields), one message naming them and the key's.
  auto expect_shape_refused = [&](const grouped_conv_key& bad) {
    EXPECT_EQ(dsl::validate(bad, arch_id::sm_90).r, dsl::rule::conv_stride1_rows_shape_not_built) << kernel_name(bad);
    EXPECT_NE(message_of(bad).find("stride1_rows on sm_90 (tma_wgmma): tile 64|128|192 x 64 x 64, pingpong 4x1x1, "
                                   "epilogue direct, stages >= 5"),
              std::string::npos)
        << message_of(bad);
  };
  auto wide = k;
  wide.algo.tile = {128, 128, 64};
  wide.algo.warp_tile = {16, 128, 16};
  expect_shape_refused(wide);
  auto long_row = k;
  long_row.algo.tile = {256, 64, 64};
  long_row.algo.stages = 5;
  expect_shape_refused(long_row);
  auto cooperative = k;
  cooperative.algo.tile = {128, 64, 64};
  cooperative.algo.sched = scheduler::intrawave;
  cooperative.algo.warps = {8, 1, 1};
  expect_shape_refused(cooperative);
  auto shuffled = k;
  shuffled.algo.epi = epilogue::cshuffle;
  expect_shape_refused(shuffled);
  auto deep_ring = k;
  deep_ring.algo.stages = 7;  // 7 rows of 200 pixels beside 72 KiB of weights: over 227 KiB
  expect_shape_refused(deep_ring);
  EXPECT_NE(message_of(deep_ring).find("key: tile m 192, 7 stages, 254080 B"), std::string::npos)
      << message_of(deep_ring);
}

// Every operand may be taken element by element (any C/G and K/G: channel-padded copies,
// backward-data's flipped weights and pixel-mapped dx); vectors between one element and 16
// bytes may not.
TEST(ConvSm90Rules, OperandsMayBeTakenElementByElement) {
  for (auto dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight}) {
    auto k = wgmma_key();
    k.sig.dir = dir;
    k.algo.vector_in = 1;
    k.algo.vector_wei = 1;
    EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok()) << message_of(k);
    auto out = k;
    out.algo.vector_out = 1;
    EXPECT_TRUE(dsl::validate(out, arch_id::sm_90).ok()) << message_of(out);
    auto two = k;  // one element or 16 bytes: 2 elements are neither
    two.algo.vector_in = 2;
    EXPECT_EQ(dsl::validate(two, arch_id::sm_90).r, dsl::rule::conv_vector_bytes_not_offered_by_pipeline);
    auto two_out = out;
    two_out.algo.vector_out = 2;
    EXPECT_EQ(dsl::validate(two_out, arch_id::sm_90).r, dsl::rule::conv_vector_bytes_not_offered_by_pipeline)
        << message_of(two_out);
  }
}

// The cost model ranks it: a finite, positive estimate that falls as the layer shrinks.
TEST(ConvSm90Rules, TheCostModelEstimatesIt) {
  auto layer = [](std::int64_t n) {
    return grouped_conv_problem{}.batch(n).channels(256, 256).input_size({28, 28}).filter_size({3}).padding({1})
        .dtype(dtype::bf16).normalized();
  };
  const double big = estimate_microseconds(wgmma_key(), layer(32));
  const double small = estimate_microseconds(wgmma_key(), layer(1));
  EXPECT_GT(big, 0.0);
  EXPECT_LT(small, big);
  EXPECT_TRUE(conv_kernel_profile(wgmma_key()).rates.persistent);
}

// The problem rules both forward implicit-GEMM kernels apply before a launch.
TEST(ConvSm90Rules, SharedForwardProblemRulesNameTheValues) {
  const auto k = wgmma_key();
  const kernels::implicit_gemm_fwd_widths w{8, 8, 8, 2};
  std::vector<std::uint16_t> in(1 << 16), wei(1 << 16), out(1 << 16);
  const auto p = grouped_conv_problem{}.batch(1).channels(64, 64).input_size({8, 8}).filter_size({3}).padding({1})
                     .dtype(dtype::bf16).normalized();
  grouped_conv_args a{in.data(), wei.data(), out.data()};
  EXPECT_FALSE(kernels::implicit_gemm_fwd_reason(k, p, a, "sm90 conv", w).has_value());

  grouped_conv_args shifted = a;
  shifted.in = in.data() + 1;  // 2-byte aligned: the 16-byte gather cannot take it
  const auto why = kernels::implicit_gemm_fwd_reason(k, p, shifted, "sm90 conv", w);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("sm90 conv: in, wei and out must be aligned to the kernel's vector widths (16, 16 and 2 bytes)"),
            std::string::npos)
      << *why;

  const auto odd = grouped_conv_problem{}.batch(1).channels(60, 64).input_size({8, 8}).filter_size({3}).padding({1})
                       .dtype(dtype::bf16).normalized();
  const auto why_odd = kernels::implicit_gemm_fwd_reason(k, odd, a, "sm90 conv", w);
  ASSERT_TRUE(why_odd.has_value());
  EXPECT_NE(why_odd->find("C/G and K/G must be multiples of the input (8) and output (8) vectors"), std::string::npos)
      << *why_odd;

  grouped_conv_args no_output = a;
  no_output.out = nullptr;
  EXPECT_EQ(kernels::implicit_gemm_fwd_reason(k, p, no_output, "sm90 conv", w).value_or(""),
            "a tensor pointer (in, wei or out) is null");
}

// A kernel that stores through a pixel map (conv_fwd<K, true>: backward-data's stride phases) takes
// output pixels that are not evenly strided and any K/G; the GEMM-row kernel names what it needs.
TEST(ConvSm90Rules, OutputsStoredThroughAPixelMapTakeAnyStrides) {
  const auto k = wgmma_key();
  const kernels::implicit_gemm_fwd_widths w{8, 8, 8, 2};
  std::vector<std::uint16_t> in(1 << 16), wei(1 << 16), out(1 << 16);
  grouped_conv_args a{in.data(), wei.data(), out.data()};
  // Every other pixel of a twice-as-wide output (a stride-2 phase of dx), and 3 output channels.
  auto phase = grouped_conv_problem{}.batch(2).channels(64, 3).input_size({8, 8}).filter_size({3}).padding({1})
                   .dtype(dtype::bf16).normalized();
  phase.out_strides.spatial[2] = 2 * 3;
  phase.out_strides.spatial[1] = 2 * 16 * 3;
  phase.out_strides.n = 16 * 16 * 3;
  EXPECT_FALSE(kernels::implicit_gemm_fwd_reason(k, phase, a, "sm90 conv", w, /*mapped_output=*/true))
      << *kernels::implicit_gemm_fwd_reason(k, phase, a, "sm90 conv", w, true);
  const auto why = kernels::implicit_gemm_fwd_reason(k, phase, a, "sm90 conv", w);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("K/G must be multiples of the input (8) and output (8) vectors"), std::string::npos) << *why;
  auto wide = phase;  // 8 output channels: then the pixels' spacing is what the GEMM rows refuse
  wide.k = 8;
  wide.wei_strides = {};
  wide.out_strides.g = 8;
  wide.out_strides.spatial[2] = 2 * 8;
  wide.out_strides.spatial[1] = 2 * 16 * 8;
  wide.out_strides.n = 16 * 16 * 8;
  wide = wide.normalized();
  EXPECT_FALSE(kernels::implicit_gemm_fwd_reason(k, wide, a, "sm90 conv", w, true));
  EXPECT_EQ(kernels::implicit_gemm_fwd_reason(k, wide, a, "sm90 conv", w).value_or(""),
            "sm90 conv: output pixels must be evenly strided (rows and images packed)");
}

}  // namespace
}  // namespace kdecl
