// FMHA declarations on NVIDIA and host targets: expansion, run-time validation
// messages, and canonical names that parse back to their keys.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "kdecl/dsl/dsl.hpp"
#include "kdecl/fmha/fmha_name.hpp"

namespace fmha_sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto nvidia = kernel_set(targets(sm_80, sm_86, sm_90),
                                          fmha().dtype(bf16).hdim(256).pipeline(mma_sync).tile(any, any).stages(any));
inline constexpr auto nvidia_rules = kernel_set(targets(sm_90), fmha().dtype(fp16).hdim(128).pipeline(any)
                                                    .warps(8, 1, 1).tile(128, any).stages(any));
inline constexpr auto hosts = kernel_set(targets(host), fmha().dtype(fp32).hdim(80, 64).mask(sliding_window).sink(true)
                                                            .pipeline(host_tiled).tile(any, any));
inline constexpr auto group = kernel_set(targets(sm_80), fmha().dtype(fp16).hdim(64).mode(group_mode)
                                                             .pipeline(mma_sync).tile(64, 64).pad(any, any, any, any));
}  // namespace fmha_sets

namespace {

using namespace kdecl;
namespace tables = kdecl::arch::fmha;

constexpr auto k_nvidia = dsl::expand<fmha_sets::nvidia>();
constexpr auto k_rules = dsl::expand_legal<fmha_sets::nvidia_rules>();
constexpr auto k_host = dsl::expand<fmha_sets::hosts>();
constexpr auto k_group = dsl::expand<fmha_sets::group>();

TEST(FmhaDsl, NvidiaKeysFitSharedMemoryAndRegisters) {
  std::set<arch_id> archs;
  for (const auto& k : k_nvidia) {
    archs.insert(k.algo.arch);
    EXPECT_TRUE(dsl::validate(k, k.algo.arch).ok()) << dsl::describe(dsl::validate(k, k.algo.arch)).view();
    EXPECT_EQ(k.algo.tile.k0, 256);  // k0 = k0max: the whole head dim
    EXPECT_EQ(k.algo.tile.k1, k.algo.tile.n0);
    EXPECT_EQ(k.algo.warp_tile0, (mnk{16, 8, 16}));
    const auto& po = *tables::find_pipeline(tables::spec_of(k.algo.arch), k.algo.pipe);
    EXPECT_LE(tables::smem_bytes(po.smem, k), po.smem_capacity);
    EXPECT_LE(tables::accumulators_per_thread(k), po.max_accumulators);
  }
  EXPECT_EQ(archs.size(), 3u);
  // hdim 256 on sm_86 (99 KiB): only 64 x 32 tiles with two stages fit.
  for (const auto& k : k_nvidia)
    if (k.algo.arch == arch_id::sm_86) {
      EXPECT_EQ(k.algo.tile.n0, 32);
      EXPECT_EQ(k.algo.stages, 2);
    }
}

TEST(FmhaDsl, Sm90OffersBothPipelinesUnderTheirOwnRules) {
  std::set<fmha_pipeline> pipes;
  for (const auto& k : k_rules) {
    pipes.insert(k.algo.pipe);
    EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
    if (k.algo.pipe == fmha_pipeline::tma_wgmma_ws) EXPECT_EQ(k.algo.tile.m0, 128);  // 2 consumer warpgroups
  }
  EXPECT_TRUE(pipes.count(fmha_pipeline::mma_sync));
  EXPECT_TRUE(pipes.count(fmha_pipeline::tma_wgmma_ws));
  EXPECT_TRUE(tables::find_pipeline(tables::spec_of(arch_id::sm_90), fmha_pipeline::tma_wgmma_ws)->kernel_built);
}

// The tma_wgmma_ws rules are the kernel's (kernels/fmha/cuda/sm90/fmha_sm90_config.cuh): two consumer
// warpgroups, head dims 64 or 128 declared (smaller ones run padded).
TEST(FmhaDsl, Sm90TmaWgmmaRulesAreTheKernels) {
  auto key = [](int hdim) {
    fmha_key k;
    k.sig.qkv = k.sig.o = dtype::bf16;
    k.sig.hdim_q = k.sig.hdim_v = hdim;
    k.algo.pipe = fmha_pipeline::tma_wgmma_ws;
    k.algo.tile = {128, 128, 0, 0, 0, 0};
    k.algo.warps0 = {8, 1, 1};
    k.algo.stages = 2;
    return k;
  };
  for (int hdim : {64, 128}) EXPECT_TRUE(dsl::validate(key(hdim), arch_id::sm_90).ok()) << hdim;
  for (int hdim : {96, 160})
    EXPECT_EQ(dsl::validate(key(hdim), arch_id::sm_90).r, dsl::rule::fmha_pipeline_requires_hdim_multiple_of_64)
        << hdim;
  fmha_key mla = key(192);  // DeepSeek's 192/128: Q's and V's head dims apart
  mla.sig.hdim_v = 128;
  EXPECT_TRUE(dsl::validate(mla, arch_id::sm_90).ok());
  // 192/192 and 256 with 128-key tiles: two K/V stages no longer fit beside Q in 227 KiB. Head dim
  // 256 takes 80-key tiles, as FlashAttention-3 tiles it: 224 KiB, and O's 128 plus S's 40
  // accumulators per consumer thread within the cap of 176.
  EXPECT_EQ(dsl::validate(key(192), arch_id::sm_90).r, dsl::rule::fmha_smem_exceeds_capacity);
  EXPECT_EQ(dsl::validate(key(256), arch_id::sm_90).r, dsl::rule::fmha_smem_exceeds_capacity);
  fmha_key wide = key(256);
  wide.algo.tile.n0 = 80;
  EXPECT_TRUE(dsl::validate(wide, arch_id::sm_90).ok());
  fmha_key wide_v = key(64);  // 64/256: the memory fits, but O (128) and S (64) exceed the cap
  wide_v.sig.hdim_v = 256;
  EXPECT_EQ(dsl::validate(wide_v, arch_id::sm_90).r, dsl::rule::fmha_accumulators_exceed_register_cap);
  fmha_key capped = key(128);  // score modifiers are the kernel's (kernels/fmha/cuda/score_mod.cuh)
  capped.sig.logits_soft_cap = true;
  capped.sig.sink = true;
  capped.sig.bias = fmha_bias::alibi;
  EXPECT_TRUE(dsl::validate(capped, arch_id::sm_90).ok());
  fmha_key one_consumer = key(128);
  one_consumer.algo.warps0 = {4, 1, 1};
  one_consumer.algo.tile.m0 = 64;
  EXPECT_EQ(dsl::validate(one_consumer, arch_id::sm_90).r, dsl::rule::fmha_warps_not_offered_for_pipeline);
  fmha_key deep = key(128);
  deep.algo.stages = 4;  // 32 KiB of Q + 4 x 64 KiB of K/V: over 227 KiB
  EXPECT_EQ(dsl::validate(deep, arch_id::sm_90).r, dsl::rule::fmha_smem_exceeds_capacity);
  EXPECT_FALSE(dsl::validate(key(128), arch_id::sm_80).ok());  // sm_90a only
}

TEST(FmhaDsl, HostKeysTakeAnyHeadDims) {
  ASSERT_EQ(k_host.size(), std::size(tables::host_m0) * std::size(tables::host_n0));
  for (const auto& k : k_host) {
    EXPECT_EQ(k.algo.tile.k0max, 80);
    EXPECT_EQ(k.algo.tile.n1, 64);
    EXPECT_TRUE(k.sig.sink);
  }
}

TEST(FmhaDsl, GroupModeKeepsOnlyPaddedSequences) {
  ASSERT_EQ(k_group.size(), 4u);  // pad_s and pad_sk forced on; d and dv both ways
  for (const auto& k : k_group) {
    EXPECT_EQ(k.algo.pad_s, tristate::yes);
    EXPECT_EQ(k.algo.pad_sk, tristate::yes);
  }
}

TEST(FmhaDsl, RunTimeValidationNamesRuleAndValues) {
  fmha_key k;
  k.sig.hdim_q = k.sig.hdim_v = 128;
  k.algo.pipe = fmha_pipeline::mma_sync;
  k.algo.tile = {128, 128, 0, 0, 0, 0};
  auto d = dsl::validate(k, arch_id::sm_90);
  EXPECT_EQ(d.r, dsl::rule::fmha_accumulators_exceed_register_cap);
  EXPECT_EQ(dsl::describe(d).view(), "fmha O and S tiles are 256 fp32 accumulators per thread, over 160 for mma_sync on sm_90");
  EXPECT_EQ(dsl::describe(dsl::validate(k, arch_id::sm_80)).view(),
            "fmha shared memory 170 KiB exceeds 163 KiB (2 stages) for mma_sync on sm_80");
  k.algo.tile = {64, 64, 0, 0, 0, 0};
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_80).ok());
  k.sig.v_layout = layout::col;
  EXPECT_EQ(dsl::describe(dsl::validate(k, arch_id::sm_80)).view(),
            "fmha column-major V not offered on sm_80 (V is row-major: any strides, head dim contiguous)");
  k.sig.v_layout = layout::row;
  k.sig.family = fmha_family::bwd;
  EXPECT_EQ(dsl::describe(dsl::validate(k, arch_id::sm_90)).view(),
            "fmha family bwd not offered on sm_90 (kdecl's NVIDIA and host targets offer fwd and the paged families; no bwd yet)");
  k.sig.family = fmha_family::fwd_splitkv;  // offered, but not by mma_sync
  EXPECT_EQ(dsl::describe(dsl::validate(k, arch_id::sm_90)).view(),
            "fmha pipeline mma_sync does not serve family fwd_splitkv on sm_90");
  k.sig.family = fmha_family::fwd;
  k.algo.stages = 5;
  EXPECT_EQ(dsl::describe(dsl::validate(k, arch_id::sm_90)).view(), "fmha stages 5 outside 2..3 for mma_sync on sm_90");
  k.algo.stages = 0;
  k.algo.pipe = fmha_pipeline::qr;
  EXPECT_EQ(dsl::validate(k, arch_id::sm_90).r, dsl::rule::fmha_pipeline_not_offered_on_arch);
  // CK's soft-cap + bias restriction is AMD's; kdecl's targets compute both.
  k.algo.pipe = fmha_pipeline::mma_sync;
  k.sig.logits_soft_cap = true;
  k.sig.bias = fmha_bias::alibi;
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
}

TEST(FmhaName, EveryExpandedKeyRoundTrips) {
  std::set<std::string> seen;
  auto check = [&](const fmha_key& k) {
    const std::string n = kernel_name(k);
    EXPECT_TRUE(seen.insert(n).second) << n;
    EXPECT_EQ(parse_fmha_name(n), k) << n;
  };
  for (const auto& k : k_nvidia) check(k);
  for (const auto& k : k_rules) check(k);
  for (const auto& k : k_host) check(k);
  for (const auto& k : k_group) check(k);
  fmha_key k = k_group[0];
  k.sig.qkv = dtype::fp8;
  k.sig.o = dtype::bf16;
  k.sig.lse = k.sig.logits_soft_cap = k.sig.sink = k.sig.dropout = true;
  k.sig.v_layout = layout::col;
  k.sig.mask = fmha_mask::bottom_right;
  k.sig.bias = fmha_bias::elementwise;
  k.sig.family = fmha_family::fwd_pagedkv;
  k.algo.warps1 = {2, 2, 1};
  k.algo.warp_tile1 = {32, 32, 16};
  k.algo.block_per_cu = 2;
  k.algo.pipe = fmha_pipeline::qr_async_trload_v3;
  k.algo.arch = arch_id::gfx950;
  check(k);
  EXPECT_EQ(kernel_name(k),
            "fmha_fwd_pagedkv_fp8-bf16_group_h64x64_vcol_mask-bottom_right_bias-elementwise_lse_softcap_sink_dropout_"
            "qr_async_trload_v3_64x64x64x64x64x64_w4x1x1-2x2x1_wt16x8x16-32x32x16_s2_padsk_bpc2_gfx950");
}

TEST(FmhaName, MalformedNamesNameTheSegment) {
  const std::string good = kernel_name(k_group[0]);
  EXPECT_EQ(parse_fmha_name(good), k_group[0]);
  auto message = [](const std::string& n) {
    try {
      parse_fmha_name(n);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  EXPECT_NE(message("gemm_" + good.substr(5)).find("segment 'gemm' is not 'fmha'"), std::string::npos);
  std::string swapped = good;
  swapped.replace(swapped.find("mask-"), 5, "mask+");
  EXPECT_NE(message(swapped).find("is not mask-<mask>"), std::string::npos) << message(swapped);
  EXPECT_NE(message(good + "_x").find("trailing"), std::string::npos);
  std::string bad_pad = good;
  bad_pad.replace(bad_pad.find("_pad"), 4, "_pad" "vs");
  EXPECT_NE(message(bad_pad).find("out of s,k,d,v order"), std::string::npos) << message(bad_pad);
}

}  // namespace
