// The direct convolution pipeline (direct_conv) on the host: its table rules
// (arch_spec.hpp direct_conv_caps, conv_rules.hpp check_direct), declaration
// expansion, canonical names, and the dispatcher's choice between it and the
// implicit GEMM (cost model: bytes over bandwidth against the GEMM's model).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "conv_test_keys.hpp"
#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"

namespace kdecl {
namespace {

using testing::make_conv_key;
using testing::recording_conv;

grouped_conv_key direct_key(dtype d = dtype::bf16, int vector = 8, arch_id arch = arch_id::sm_90) {
  grouped_conv_key k;
  k.sig.dir = conv_direction::fwd;
  k.sig.ndim = 2;
  k.sig.lay = conv_layout::nhwgc;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = d;
  k.sig.acc = dtype::fp32;
  const int lanes = 64 / vector, threads = 256, workers = threads / lanes;
  k.algo.tile = {8, 8, 64};
  k.algo.warps = {threads / 32, 1, 1};
  k.algo.warp_tile = {64 / workers, vector, 1};
  k.algo.pipe = pipeline::direct_conv;
  k.algo.stages = 1;
  k.algo.epi = epilogue::direct;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_in = k.algo.vector_out = vector;
  k.algo.vector_wei = 1;
  k.algo.arch = arch;
  return k;
}

TEST(ConvDirectRules, AcceptsTheShippedShapesOnSm80AndSm90) {
  for (arch_id a : {arch_id::sm_80, arch_id::sm_90})
    for (dtype d : {dtype::fp16, dtype::bf16})
      for (int v : {8, 2}) {
        const auto diag = dsl::validate(direct_key(d, v, a), a);
        EXPECT_TRUE(diag.ok()) << to_string(a) << " " << to_string(d) << " v" << v << ": "
                               << dsl::describe(diag).view();
      }
  // Depthwise backward data and 1-D (a one-row tile).
  auto bwd = direct_key();
  bwd.sig.dir = conv_direction::bwd_data;
  EXPECT_TRUE(dsl::validate(bwd, arch_id::sm_90).ok());
  auto one_d = direct_key();
  one_d.sig.ndim = 1;
  one_d.sig.lay = conv_layout::nwgc;
  one_d.algo.tile = {1, 64, 64};
  EXPECT_TRUE(dsl::validate(one_d, arch_id::sm_80).ok()) << dsl::describe(dsl::validate(one_d, arch_id::sm_80)).view();
}

TEST(ConvDirectRules, EachRuleRejectsWithItsDiagnostic) {
  auto rule_of = [](const grouped_conv_key& k, arch_id a = arch_id::sm_90) { return dsl::validate(k, a).r; };
  auto k = direct_key();
  k.algo.warps = {3, 1, 1};  // 96 threads
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_threads_not_offered);
  k = direct_key();
  k.algo.tile = {8, 4, 64};  // 32 workers x 2 pixels = 64, not 32
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_tile_not_threads_x_pixels);
  k = direct_key();
  k.algo.warp_tile = {2, 4, 1};  // channels per thread != vector
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_channels_per_thread_not_vector);
  k = direct_key();
  k.algo.vector_wei = 8;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_weight_vector_not_one);
  k = direct_key();
  k.algo.tile.m = any_int;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_needs_explicit_shape);
  k = direct_key();
  k.algo.warps = {8, 2, 1};
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_shape_not_one_dimensional);
  k = direct_key();
  k.sig.dir = conv_direction::bwd_weight;  // every direction is offered (bwd_data and bwd_weight: depthwise)
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
  k = direct_key();
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = dtype::fp32;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_dtypes_not_offered_by_pipeline);
  k = direct_key();
  k.sig.compute = dtype::tf32;  // CUDA cores multiply in the data's dtype
  EXPECT_EQ(rule_of(k), dsl::rule::conv_computes_in_its_input_dtype);
  k = direct_key(dtype::bf16, 16);  // 32 bytes
  EXPECT_EQ(rule_of(k), dsl::rule::conv_vector_bytes_not_offered_by_pipeline);
  k = direct_key();
  k.sig.ndim = 3;
  k.sig.lay = conv_layout::ndhwgc;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_layout_not_offered_by_pipeline);
  // 1024 pixels x 256 channels of bf16 staged with a 3x3 halo: more than sm_80's shared memory.
  k = direct_key();
  k.algo.tile = {32, 32, 256};
  k.algo.warps = {16, 1, 1};
  k.algo.warp_tile = {8, 8, 1};  // 32 lanes, 16 workers x 8 pixels = 128 != 1024
  EXPECT_EQ(rule_of(k, arch_id::sm_80), dsl::rule::conv_direct_tile_not_threads_x_pixels);
  // The host builds no direct convolution.
  EXPECT_EQ(rule_of(direct_key(), arch_id::host), dsl::rule::conv_not_built_by_pipeline);
  EXPECT_NE(dsl::describe(dsl::validate(direct_key(), arch_id::host)).view().find("direct_conv"), std::string::npos);
}

// The TMA-staged depthwise kernel (stages 2): an sm_90 table entry, its own shape rules, and
// shared memory for two boxes of input + halo instead of one tile and the taps.
grouped_conv_key staged_key(arch_id arch = arch_id::sm_90) {
  auto k = direct_key(dtype::bf16, 2, arch);
  k.algo.stages = 2;
  k.algo.tile = {8, 16, 32};   // 16 lanes of 2 channels, 8 workers of 4 x 4 outputs
  k.algo.warps = {4, 1, 1};
  k.algo.warp_tile = {4, 2, 4};
  return k;
}

TEST(ConvDirectRules, StagedDepthwiseIsAnSm90KernelWithItsOwnShapeRules) {
  auto rule_of = [](const grouped_conv_key& k, arch_id a = arch_id::sm_90) { return dsl::validate(k, a).r; };
  EXPECT_TRUE(dsl::validate(staged_key(), arch_id::sm_90).ok()) << dsl::describe(dsl::validate(staged_key(), arch_id::sm_90)).view();
  EXPECT_EQ(rule_of(staged_key(arch_id::sm_80), arch_id::sm_80), dsl::rule::conv_direct_staged_not_offered);
  EXPECT_NE(dsl::describe(dsl::validate(staged_key(arch_id::sm_80), arch_id::sm_80)).view().find("sm_80"),
            std::string::npos);
  auto k = staged_key();
  k.sig.dir = conv_direction::bwd_data;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_staged_shape_not_built);
  k = staged_key();
  k.sig.ndim = 1;
  k.sig.lay = conv_layout::nwgc;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_staged_shape_not_built);
  k = staged_key();
  k.algo.warp_tile.k = 16;  // more rows per thread than the table's 8
  k.algo.tile.m = 32;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_staged_shape_not_built);
  k = staged_key();
  k.algo.tile = {8, 64, 4};  // 8 bytes of channels: not whole 16-byte lines
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_staged_shape_not_built);
  k = staged_key();
  k.algo.tile = {4, 32, 32};  // one row of 8 workers of 4 x 4 outputs: a valid shape too
  EXPECT_TRUE(dsl::validate(k, arch_id::sm_90).ok());
  k = staged_key();
  k.algo.tile = {6, 16, 32};  // 6 rows: not a multiple of 4 rows per thread
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_staged_shape_not_built);
  k = staged_key();
  k.algo.tile = {8, 32, 32};  // 8 workers x 4 x 4 = 128 outputs, not 256
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_tile_not_threads_x_pixels);
  k = staged_key();
  k.algo.stages = 3;
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_shape_not_one_dimensional);
  k = direct_key();
  k.algo.warp_tile.k = 2;  // rows per thread need the staged kernel
  EXPECT_EQ(rule_of(k), dsl::rule::conv_direct_shape_not_one_dimensional);
  // Two 128-byte aligned boxes of (8-1+3) x (16-1+3) pixels x 32 bf16 channels and two mbarriers.
  EXPECT_EQ(dsl::conv_rules::direct_smem_bytes(staged_key(), 3, 3, 1, 1, 1, 1, 32, 1), 2 * 11520 + 16);
  EXPECT_EQ(dsl::conv_rules::direct_smem_bytes(staged_key(), 7, 7, 2, 2, 1, 1, 32, 1),
            2 * ((21 * 37 * 64 + 127) / 128 * 128) + 16);
  const std::string name = kernel_name(staged_key());
  EXPECT_NE(name.find("_8x16x32_4x1x1_4x2x4_s2_v2x1x2_sm_90"), std::string::npos) << name;
  EXPECT_EQ(parse_conv_name(name), staged_key());
}

TEST(ConvDirectRules, ExpansionResolvesDefaultsAndWalksDtypes) {
  grouped_conv_key decl = direct_key();
  decl.sig.in = decl.sig.wei = decl.sig.out = decl.sig.acc = decl.sig.compute = dtype::any;
  decl.algo.stages = 0;
  decl.algo.epi = epilogue::any;
  decl.algo.sched = scheduler::any;
  decl.algo.vector_wei = 0;
  std::vector<grouped_conv_key> keys;
  const auto out = dsl::conv_expansion::expand(decl, arch_id::sm_90, [&](const grouped_conv_key& k) {
    keys.push_back(k);
  });
  ASSERT_TRUE(out.error.ok()) << dsl::describe(out.error).view();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(keys[0].sig.in, dtype::fp16);
  EXPECT_EQ(keys[1].sig.in, dtype::bf16);
  for (const auto& k : keys) {
    EXPECT_TRUE(k.concrete());
    EXPECT_EQ(k.algo.stages, 1);
    EXPECT_EQ(k.algo.epi, epilogue::direct);
    EXPECT_EQ(k.algo.vector_wei, 1);
  }
}

TEST(ConvDirectRules, NamesRoundTrip) {
  const auto k = direct_key();
  const std::string name = kernel_name(k);
  EXPECT_NE(name.find("_direct_conv_direct_intrawave_8x8x64_8x1x1_2x8x1_s1_v8x1x8_sm_90"), std::string::npos)
      << name;
  EXPECT_EQ(parse_conv_name(name), k);
}

device sm90() { return device{arch_id::sm_90, 0, "test sm_90"}; }

using P = grouped_conv_problem;

// A fused depthwise layer: the direct kernel computes it plain and the epilogue follows as a pass;
// the note says the direct pipeline cannot fuse it (rather than what to declare).
TEST(ConvDirectDispatch, FusedDepthwiseIsComposedAndTheNoteSaysWhyNotFused) {
  registry reg;
  reg.add(std::make_shared<recording_conv>(direct_key(dtype::bf16, 8)), "s");
  const auto p = P{}.batch(2).channels(64, 64).groups(64).input_size({56, 56}).filter_size({3}).padding({1})
                     .dtype(dtype::bf16).bias().activation(elementwise::relu);
  const auto sel = conv_dispatcher(sm90(), reg).select(p);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_TRUE(sel.composed_epilogue);
  EXPECT_NE(sel.explain().find("its pipeline cannot fuse it (fused conv epilogue not built by direct_conv on sm_90"),
            std::string::npos)
      << sel.explain();
}

// The dispatcher: depthwise and 3-channel stems to direct_conv, dense layers to the
// implicit GEMM; direct_conv's own refusals carry their reasons.
TEST(ConvDirectDispatch, DepthwiseAndStemsGoDirectDenseStaysImplicitGemm) {
  registry reg;
  reg.add(std::make_shared<recording_conv>(direct_key(dtype::bf16, 8)), "s");
  reg.add(std::make_shared<recording_conv>(direct_key(dtype::bf16, 1)), "s");
  reg.add(std::make_shared<recording_conv>(make_conv_key(conv_direction::fwd, dtype::bf16, 128, 128, 32)), "s");
  reg.add(std::make_shared<recording_conv>(make_conv_key(conv_direction::fwd, dtype::bf16, 64, 64, 32,
                                                         arch_id::sm_90, pipeline::cp_async, 2)),
          "s");
  conv_dispatcher d(sm90(), reg);
  auto pick = [&](const P& p) {
    auto sel = d.select(p);
    EXPECT_TRUE(sel) << p.describe() << ": " << sel.explain();
    return sel ? sel.kernel->key() : grouped_conv_key{};
  };
  const auto dw = P{}.batch(32).channels(144, 144).groups(144).input_size({56, 56}).filter_size({3}).padding({1})
                      .dtype(dtype::bf16);
  EXPECT_EQ(pick(dw).algo.pipe, pipeline::direct_conv);
  EXPECT_EQ(pick(dw).algo.vector_out, 8);
  const auto stem = P{}.batch(32).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2}).padding({3})
                        .dtype(dtype::bf16);
  EXPECT_EQ(pick(stem).algo.pipe, pipeline::direct_conv);
  EXPECT_EQ(pick(stem).algo.vector_out, 1);  // C = 3: the one-element instance
  const auto dense = P{}.batch(32).channels(256, 256).input_size({28, 28}).filter_size({3}).padding({1})
                         .dtype(dtype::bf16);
  EXPECT_EQ(pick(dense).algo.pipe, pipeline::cp_async);
}

}  // namespace
}  // namespace kdecl
