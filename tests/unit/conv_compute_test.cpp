// A convolution's compute precision: fp32 data multiplied in tf32 or exactly. The
// key carries it (declared with .compute(tf32) after .dtype(fp32)), the arch tables
// say which pipelines build it (cp_async and host: both; tma_wgmma and direct_conv:
// neither), and the name spells it only when it is not the data's dtype.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"

namespace kdecl {
namespace {

using namespace kdecl::dsl;

constexpr auto cp_async_fp32 = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(cp_async)
                                   .epilogue(cshuffle).dtype(fp32).stages(4);
constexpr auto tf32_key = cp_async_fp32.compute(tf32).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8)
                              .vector_sizes(4, 4, 4).scheduler(intrawave).key();
constexpr auto exact_key = cp_async_fp32.tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3)
                               .vector_sizes(1, 1, 1).scheduler(intrawave).key();

std::string message(const grouped_conv_key& k, arch_id arch) {
  return std::string(dsl::describe(dsl::validate(k, arch)).view());
}

TEST(ConvCompute, BuilderSetsTheComputeAfterTheDtype) {
  EXPECT_EQ(tf32_key.sig.in, dtype::fp32);
  EXPECT_EQ(tf32_key.sig.compute, dtype::tf32);
  EXPECT_EQ(exact_key.sig.compute, dtype::fp32);
  // dtype() resets the multiply to the data's dtype.
  EXPECT_EQ(grouped_conv().compute(tf32).dtype(fp32).key().sig.compute, dtype::fp32);
}

TEST(ConvCompute, CpAsyncBuildsTf32AndExactFp32OnAmpereAndHopper) {
  for (auto arch : {arch_id::sm_80, arch_id::sm_86, arch_id::sm_90})
    for (auto dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight})
      for (auto k : {tf32_key, exact_key}) {
        k.sig.dir = dir;
        EXPECT_TRUE(dsl::validate(k, arch).ok()) << to_string(arch) << " " << message(k, arch);
      }
}

TEST(ConvCompute, OtherPipelinesAndDtypesAreRefusedWithTheRule) {
  auto fp16_in_tf32 = tf32_key;  // tf32 is for fp32 data only
  fp16_in_tf32.sig.in = fp16_in_tf32.sig.wei = fp16_in_tf32.sig.out = dtype::fp16;
  EXPECT_EQ(dsl::validate(fp16_in_tf32, arch_id::sm_90).r, dsl::rule::tf32_compute_requires_fp32_data)
      << message(fp16_in_tf32, arch_id::sm_90);

  auto wgmma = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(tma_wgmma).dtype(fp32).compute(tf32)
                   .tile(128, 128, 32).warps(8, 1, 1).warp_tile(16, 128, 8).stages(4).epilogue(cshuffle)
                   .scheduler(intrawave).vector_sizes(4, 4, 4).key();
  EXPECT_EQ(dsl::validate(wgmma, arch_id::sm_90).r, dsl::rule::conv_dtypes_not_offered_by_pipeline)
      << message(wgmma, arch_id::sm_90);

  auto direct = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(direct_conv).dtype(fp16)
                    .tile(8, 16, 64).warps(8, 1, 1).warp_tile(4, 8, 1).vector_sizes(8, 1, 8).key();
  ASSERT_TRUE(dsl::validate(direct, arch_id::sm_90).ok()) << message(direct, arch_id::sm_90);
  direct.sig.compute = dtype::tf32;
  EXPECT_EQ(dsl::validate(direct, arch_id::sm_90).r, dsl::rule::conv_computes_in_its_input_dtype);
  EXPECT_NE(message(direct, arch_id::sm_90).find("multiplies in its input dtype fp16, not tf32"), std::string::npos)
      << message(direct, arch_id::sm_90);
}

// A dtype wildcard on cp_async walks both fp32 keys (tf32 and exact) besides fp16 and bf16.
TEST(ConvCompute, WildcardDtypeExpandsToBothFp32Multiplies) {
  auto decl = grouped_conv().direction(fwd).ndim(2).layout(nhwgc).pipeline(cp_async).epilogue(cshuffle)
                  .dtype(any).tile(64, 64, 16).warps(2, 2, 1).warp_tile(any, any, any).stages(4)
                  .scheduler(intrawave).key();
  std::set<std::string> seen;
  const auto out = dsl::conv_expansion::expand(decl, arch_id::sm_90, [&](const grouped_conv_key& k) {
    seen.insert(std::string(to_string(k.sig.in)) + "/" + std::string(to_string(k.sig.compute)));
  });
  EXPECT_GT(out.produced, 0);
  EXPECT_TRUE(seen.count("fp32/tf32")) << seen.size();
  EXPECT_TRUE(seen.count("fp32/fp32")) << seen.size();
  EXPECT_TRUE(seen.count("bf16/bf16")) << seen.size();
}

TEST(ConvCompute, NamesSpellTf32AndParseBack) {
  auto k = tf32_key;
  k.algo.arch = arch_id::sm_90;
  const std::string name = kernel_name(k);
  EXPECT_NE(name.find("_fp32-tf32_"), std::string::npos) << name;
  EXPECT_EQ(parse_conv_name(name), k) << name;
  auto exact = exact_key;
  exact.algo.arch = arch_id::sm_80;
  EXPECT_NE(kernel_name(exact).find("_fp32_nhwgc_"), std::string::npos) << kernel_name(exact);
  EXPECT_EQ(parse_conv_name(kernel_name(exact)), exact);
  // The input's own dtype named as the compute is not the canonical name.
  std::string spelled = kernel_name(exact);
  spelled.replace(spelled.find("_fp32_"), 6, "_fp32-fp32_");
  EXPECT_THROW(parse_conv_name(spelled), std::invalid_argument);
}

}  // namespace
}  // namespace kdecl
