#include <gtest/gtest.h>

#include <map>
#include <stdexcept>

#include "kdecl/gemm/gemm_name.hpp"
#include "test_keys.hpp"

namespace kdecl {
namespace {

using testing::make_key;

TEST(GemmName, ReadsLikeTheKey) {
  auto k = make_key(dtype::fp16, rcr, 256, 128, 64, arch_id::sm_90, pipeline::tma_wgmma);
  EXPECT_EQ(kernel_name(k), "gemm_fp16_rcr_tma_wgmma_cshuffle_intrawave_256x128x64_2x2x1_32x32x16_s3_v16_padmnk_sm_90");
}

TEST(GemmName, RoundTripsEveryFieldVariation) {
  std::vector<gemm_key> keys;
  auto base = make_key(dtype::fp16, rcr, 128, 128, 32);
  keys.push_back(base);
  for (auto lay : {rrr, crr, ccr, gemm_layout{layout::col, layout::col, layout::col}}) {
    auto k = base; k.sig.lay = lay; keys.push_back(k);
  }
  { auto k = base; k.sig.a = k.sig.b = dtype::fp32; k.sig.c = dtype::fp32; k.sig.compute = dtype::tf32; keys.push_back(k); }
  { auto k = base; k.sig.a = dtype::fp8; k.sig.b = dtype::bf8; k.sig.c = dtype::bf16; k.sig.compute = dtype::fp8; keys.push_back(k); }
  { auto k = base; k.sig.a = k.sig.b = k.sig.compute = dtype::int8; k.sig.c = dtype::int32; k.sig.acc = dtype::int32; keys.push_back(k); }
  { auto k = base; k.sig.variant = gemm_variant::preshuffle; keys.push_back(k); }
  {
    auto k = base;
    k.sig.a = k.sig.b = k.sig.compute = dtype::fp8;
    k.sig.c = dtype::bf16;
    k.sig.variant = gemm_variant::block_scaled;
    k.algo.tile.k = 128;
    keys.push_back(k);
  }
  for (auto op : {elementwise::pass_through, elementwise::multi_d_add, elementwise::relu, elementwise::gelu,
                  elementwise::sigmoid, elementwise::tanh})
    for (int d = 1; d <= 4; ++d) {
      auto k = base; k.sig.variant = gemm_variant::multi_d; k.sig.ew = op; k.sig.num_d = d; keys.push_back(k);
    }
  for (auto pipe : {pipeline::compv3, pipeline::compv4, pipeline::mem, pipeline::comp_async, pipeline::host_blocked}) {
    auto k = base; k.algo.pipe = pipe; keys.push_back(k);
  }
  for (auto arch : {arch_id::host, arch_id::sm_80, arch_id::sm_86, arch_id::sm_89, arch_id::gfx942, arch_id::gfx1201}) {
    auto k = base; k.algo.arch = arch; keys.push_back(k);
  }
  for (auto pm : {tristate::no, tristate::yes})
    for (auto pn : {tristate::no, tristate::yes})
      for (auto pk : {tristate::no, tristate::yes}) {
        auto k = base; k.algo.pad_m = pm; k.algo.pad_n = pn; k.algo.pad_k = pk; keys.push_back(k);
      }
  { auto k = base; k.algo.cluster_m = 2; keys.push_back(k); }
  { auto k = base; k.algo.index_bits = 64; keys.push_back(k); }
  { auto k = base; k.algo.index_bits = 64; k.algo.cluster_n = 2; k.algo.vector_bytes = 2; keys.push_back(k); }
  { auto k = base; k.algo.stages = 7; k.algo.vector_bytes = 4; k.algo.epi = epilogue::direct; keys.push_back(k); }
  { auto k = base; k.algo.sched = scheduler::interwave; keys.push_back(k); }

  std::map<std::string, gemm_key> by_name;
  for (const auto& k : keys) {
    auto name = kernel_name(k);
    EXPECT_EQ(parse_gemm_name(name), k) << name;
    auto [it, fresh] = by_name.emplace(name, k);
    EXPECT_TRUE(fresh || it->second == k) << "two different keys share the name " << name;
  }
  EXPECT_GT(by_name.size(), 40u);
}

TEST(GemmName, RejectsMalformedNamesWithTheSegment) {
  auto expect_error = [](const std::string& name, const std::string& fragment) {
    try {
      parse_gemm_name(name);
      ADD_FAILURE() << "accepted " << name;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
    }
  };
  const std::string good = "gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90";
  EXPECT_NO_THROW(parse_gemm_name(good));
  expect_error("conv_fp16_rcr", "'conv'");
  expect_error("gemm_fp17_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90", "'fp17'");
  expect_error("gemm_fp16_rxr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90", "layout");
  expect_error("gemm_fp16_rcr_warp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90", "pipeline");
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x0x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90", "positive");
  expect_error(good + "_extra", "trailing");
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padkm_sm_90", "order");
  // What the name fuzzer found: a leading zero or a trailing '_' also gave one key two names.
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x0128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90", "leading zero");
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s03_v16_padmnk_sm_90", "leading zero");
  expect_error(good + "_", "ends with '_'");
  // Spelling out default dtypes would give one key two names.
  // The index width is named only when it is 64.
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_i32_padmnk_sm_90", "i32");
  expect_error("gemm_fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_i48_padmnk_sm_90", "i48");
  expect_error("gemm_fp16-fp16-fp16-fp32-fp16_rcr_cp_async_cshuffle_intrawave_128x128x32_2x2x1_32x32x16_s3_v16_padmnk_sm_90",
               "canonical");
}

TEST(GemmName, SixtyFourBitOffsetsAreNamed) {
  auto k = make_key(dtype::bf16, rcr, 128, 256, 64, arch_id::sm_90, pipeline::tma_wgmma);
  k.algo.index_bits = 64;
  EXPECT_EQ(kernel_name(k), "gemm_bf16_rcr_tma_wgmma_cshuffle_intrawave_128x256x64_2x2x1_32x32x16_s3_v16_i64_padmnk_sm_90");
  k.algo.index_bits = 48;  // neither 32 nor 64: not a concrete key
  EXPECT_THROW(kernel_name(k), std::invalid_argument);
}

TEST(GemmName, RefusesWildcardKeys) {
  auto k = make_key(dtype::fp16, rcr, 128, 128, 32);
  k.algo.tile.m = any_int;
  EXPECT_THROW(kernel_name(k), std::invalid_argument);
}

}  // namespace
}  // namespace kdecl
