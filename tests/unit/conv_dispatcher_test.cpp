#include <gtest/gtest.h>

#include "conv_test_keys.hpp"
#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"

#include <cstdint>
#include <vector>

namespace kdecl {
namespace {

using testing::make_conv_key;
using testing::recording_conv;

device sm90() { return device{arch_id::sm_90, 0, "test sm_90"}; }

// ResNet-50's 3x3 layer of stage 2 at batch n.
grouped_conv_problem resnet_3x3(std::int64_t n = 8, dtype d = dtype::fp16) {
  return grouped_conv_problem{}.batch(n).channels(64, 64).input_size({56, 56}).filter_size({3}).padding({1}).dtype(d);
}

std::shared_ptr<recording_conv> add(registry& reg, const grouped_conv_key& k) {
  auto kernel = std::make_shared<recording_conv>(k);
  reg.add(kernel, "s");
  return kernel;
}

TEST(ConvDispatcher, NeverPicksAnotherDirectionDtypeLayoutRankOrArch) {
  registry reg;
  add(reg, make_conv_key(conv_direction::bwd_data, dtype::fp16, 128, 128, 32));
  add(reg, make_conv_key(conv_direction::fwd, dtype::bf16, 128, 128, 32));
  auto gm = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
  gm.sig.lay = conv_layout::gnhwc;
  add(reg, gm);
  auto three = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
  three.sig.ndim = 3;
  three.sig.lay = conv_layout::ndhwgc;
  add(reg, three);
  add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32, arch_id::sm_80));
  conv_dispatcher d(sm90(), reg);
  auto sel = d.select(resnet_3x3());
  ASSERT_FALSE(sel);
  const auto text = sel.explain(10);
  EXPECT_NE(text.find("direction is bwd_data, the problem's is fwd"), std::string::npos) << text;
  EXPECT_NE(text.find("input dtype is bf16, the problem's is fp16"), std::string::npos) << text;
  EXPECT_NE(text.find("layout is gnhwc, the problem's is nhwgc"), std::string::npos) << text;
  EXPECT_NE(text.find("computes 3-D convolutions, the problem is 2-D"), std::string::npos) << text;
  EXPECT_EQ(text.find("sm_80"), std::string::npos) << text;  // another arch's kernels are not candidates

  add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32));
  sel = d.select(resnet_3x3());
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().sig.dir, conv_direction::fwd);
  EXPECT_EQ(sel.kernel->arch(), arch_id::sm_90);
}

// A fused epilogue is part of the signature: a kernel computes its own fusion, or, dynamic, any.
TEST(ConvDispatcher, FusedEpiloguesTakeOnlyTheirProblems) {
  registry reg;
  auto bias_relu = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
  bias_relu.sig.fuse = {.act = elementwise::relu, .bias = true};
  add(reg, bias_relu);
  conv_dispatcher d(sm90(), reg);
  auto sel = d.select(resnet_3x3());
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("fused epilogue is bias, then relu, the problem's is none"), std::string::npos)
      << sel.explain();
  sel = d.select(resnet_3x3().bias().residual().activation(elementwise::relu));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("the problem's is bias + residual, then relu"), std::string::npos) << sel.explain();
  EXPECT_TRUE(sel.fusion_hint.empty());  // no kernel computes even the plain convolution
  {  // Where a plain kernel exists, it runs and the epilogue follows as a pass; the note says what to declare.
    registry with_plain;
    add(with_plain, bias_relu);
    auto plain = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
    add(with_plain, plain);
    const auto composed = conv_dispatcher(sm90(), with_plain).select(resnet_3x3().bias().residual().activation(
        elementwise::relu));
    ASSERT_TRUE(composed) << composed.explain();
    EXPECT_TRUE(composed.composed_epilogue);
    EXPECT_EQ(composed.kernel->name(), kernel_name(plain));
    EXPECT_NE(composed.explain().find("selected " + kernel_name(plain) + " and the fused epilogue as a pass of its own"),
              std::string::npos)
        << composed.explain();
    EXPECT_NE(composed.explain().find("no registered kernel compiles the fused epilogue (bias + residual, then relu) "
                                      "in: " + kernel_name(plain) + " computes the plain convolution and a second pass "
                                      "applies it (one more read and write of the output); for one pass declare e.g. "
                                      "grouped_conv()....bias().residual().activation(relu)"),
              std::string::npos)
        << composed.explain();
    // The plain estimate plus the pass's traffic: dearer than the plain convolution alone.
    EXPECT_GT(composed.estimated_us, conv_dispatcher(sm90(), with_plain).select(resnet_3x3()).estimated_us);
  }
  sel = d.select(resnet_3x3().bias().activation(elementwise::relu));
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().sig.fuse, bias_relu.sig.fuse);

  // A kernel reading the fusion at run time takes every forward problem, fused or not, beside the exact one.
  auto dynamic = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 64, 32);
  dynamic.sig.fuse = {.dynamic = true};
  add(reg, dynamic);
  for (auto p : {resnet_3x3(), resnet_3x3().residual().activation(elementwise::gelu)}) {
    sel = d.select(p);
    ASSERT_TRUE(sel) << sel.explain();
    EXPECT_TRUE(sel.kernel->key().sig.fuse.dynamic);
  }
  EXPECT_EQ(d.ranked(resnet_3x3().bias().activation(elementwise::relu)).size(), 2u);
  // Backward problems are never fused, and a dynamic forward kernel is no candidate for them.
  EXPECT_TRUE(d.ranked(resnet_3x3().direction(conv_direction::bwd_data)).empty());
}

// A composed epilogue runs the plain kernel into the output, then the pass over it; where the
// residual is the output itself, the plain result goes to workspace the dispatcher lends first.
TEST(ConvDispatcher, ComposedEpilogueRunsThePlainKernelThenThePass) {
  registry reg;
  auto plain = add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32));
  conv_dispatcher gpu(sm90(), reg);  // the recording kernel touches no memory: host buffers stand in
  const auto p = resnet_3x3().bias().residual().activation(elementwise::gelu).normalized();
  alignas(256) static unsigned char in[256], wei[256], out[256], bias[256], residual[256];
  grouped_conv_args a{in, wei, out};
  a.bias = bias;
  a.residual = residual;
  const auto sel = gpu.select(p, &a);
  ASSERT_TRUE(sel.composed_epilogue) << sel.explain();
  EXPECT_EQ(conv_workspace_bytes(sel, p, &a), 0u);  // a separate residual: nothing to keep aside
  ASSERT_TRUE(run_selected(sel, p, a, nullptr));
  EXPECT_EQ(plain->runs.load(), 1);
  EXPECT_EQ(plain->last_out, static_cast<const void*>(out));
  EXPECT_EQ(plain->epilogue_passes.load(), 1);
  EXPECT_EQ(plain->last_result, static_cast<const void*>(out));

  // The residual is the output: the plain result needs room, refused without it, placed after the kernel's share.
  a.residual = out;
  plain->wants_workspace = 1000;
  const std::size_t result_bytes = std::size_t(p.span(conv_tensor::output)) * 2;
  EXPECT_EQ(conv_workspace_bytes(gpu.select(p, &a), p, &a), 1024 + result_bytes);
  const auto refused = run_selected(sel, p, a, nullptr);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.message().find("the plain result needs " + std::to_string(result_bytes) + " bytes of workspace "
                                   "after the kernel's 1024"),
            std::string::npos)
      << refused.message();
  std::vector<unsigned char> storage(1024 + result_bytes + 512);
  unsigned char* ws = storage.data() + (256 - reinterpret_cast<std::uintptr_t>(storage.data()) % 256);  // 256-aligned
  a.workspace = ws + 1;  // misaligned: the plain result would be too
  a.workspace_bytes = 1024 + result_bytes;
  const auto misaligned = run_selected(sel, p, a, nullptr);
  ASSERT_FALSE(misaligned);
  EXPECT_NE(misaligned.message().find("256-byte aligned"), std::string::npos) << misaligned.message();
  a.workspace = ws;
  ASSERT_TRUE(run_selected(sel, p, a, nullptr));
  EXPECT_EQ(plain->last_out, static_cast<const void*>(ws + 1024));
  EXPECT_EQ(plain->last_result, static_cast<const void*>(ws + 1024));
  EXPECT_EQ(plain->last_workspace_bytes, 1024u);
}

TEST(ConvDispatcher, SpecializationsTakeOnlyTheirProblems) {
  registry reg;
  auto k = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
  k.sig.spec = conv_specialization::filter1x1_stride1_pad0;
  add(reg, k);
  conv_dispatcher d(sm90(), reg);
  auto sel = d.select(resnet_3x3());
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("is specialized for 1x1 filters without padding (filter1x1_stride1_pad0); the problem's "
                               "filter is 3x3 with padding 1x1/1x1"),
            std::string::npos)
      << sel.explain();
  auto pointwise = resnet_3x3().filter_size({1}).padding({0});
  EXPECT_TRUE(d.select(pointwise));
  sel = d.select(pointwise.stride({2}));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("is specialized for stride 1 (filter1x1_stride1_pad0); the problem's stride is 2x2"),
            std::string::npos)
      << sel.explain();
}

TEST(ConvDispatcher, TheStride1SpecializationTakesUnitStridesOnly) {
  registry reg;
  auto k = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32);
  k.sig.spec = conv_specialization::stride1;
  add(reg, k);
  conv_dispatcher d(sm90(), reg);
  EXPECT_TRUE(d.select(resnet_3x3()));
  auto sel = d.select(resnet_3x3().stride({2, 1}));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("is specialized for unit strides (stride1); the problem's stride is 2x1"),
            std::string::npos)
      << sel.explain();
}

TEST(ConvDispatcher, GroupsToMergeMustDivideG) {
  registry reg;
  auto k = make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32, arch_id::sm_90, pipeline::cp_async, 1);
  k.algo.groups_to_merge = 4;
  add(reg, k);
  conv_dispatcher d(sm90(), reg);
  EXPECT_TRUE(d.select(resnet_3x3().channels(64, 64).groups(32)));
  auto sel = d.select(resnet_3x3().channels(60, 60).groups(30));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("G = 30 is not a multiple of the kernel's groups_to_merge 4"), std::string::npos)
      << sel.explain();
}

TEST(ConvDispatcher, AlignmentPicksNarrowerVectorsOrExplains) {
  registry reg;
  add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32));  // 8 elements = 16 bytes
  conv_dispatcher d(sm90(), reg);
  auto stem = grouped_conv_problem{}.batch(1).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2})
                  .padding({3}).dtype(dtype::fp16);
  auto sel = d.select(stem);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("C/G = 3 input channels per group is not a multiple of the kernel's input vector of 8 "
                               "elements"),
            std::string::npos)
      << sel.explain();
  add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32, arch_id::sm_90, pipeline::cp_async, 1));
  sel = d.select(stem);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.vector_in, 1);

  // Strides: rows padded by 4 channels are 8-byte, not 16-byte multiples.
  conv_tensor_strides s;
  s.spatial[1] = 56 * 64 + 4;
  auto padded = resnet_3x3().input_strides(s);
  auto r = d.ranked(padded);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.front().first->key().algo.vector_in, 1);
  int closeness = 0;
  auto why = conv_rejection(*std::static_pointer_cast<const conv_instance>(reg.find(
                                kernel_name(make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32)))),
                            padded.normalized(), nullptr, &closeness);
  EXPECT_EQ(why.value_or(""), "input stride of H = 3588 elements is not a multiple of the kernel's input vector of 8 "
                              "elements");
  EXPECT_EQ(closeness, 5);  // passed direction, rank and layout, dtypes, fused epilogue, specialization

  // A misaligned pointer is refused at select time, never handed to a kernel.
  alignas(16) static std::uint16_t buf[64];
  grouped_conv_args args{buf + 1, buf, buf};
  sel = d.select(resnet_3x3(), &args, true);
  ASSERT_TRUE(sel);
  EXPECT_EQ(sel.kernel->key().algo.vector_in, 1);
  ASSERT_FALSE(sel.rejected.empty());
  EXPECT_NE(sel.rejected[0].reason.find("pointer in = "), std::string::npos) << sel.rejected[0].reason;
  EXPECT_NE(sel.rejected[0].reason.find("is not aligned to the kernel's 16-byte input access"), std::string::npos);
}

// An sm_90 kernel that reads channel-padded copies (vector 1) is passed over where its twin with
// 16-byte vectors runs the problem too (the same GEMM without the copies), and ranked where not.
TEST(ConvDispatcher, PaddedCopyKernelsGiveWayToTheirVectorTwins) {
  for (conv_direction dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight}) {
    registry reg;
    const auto padded = make_conv_key(dir, dtype::bf16, 128, 64, 64, arch_id::sm_90, pipeline::tma_wgmma, 1);
    add(reg, padded);
    conv_dispatcher d(sm90(), reg);
    const auto layer = resnet_3x3(1, dtype::bf16).direction(dir);
    auto r = d.ranked(layer);
    ASSERT_EQ(r.size(), 1u) << "alone, the padded-copy kernel runs the layer";
    add(reg, make_conv_key(dir, dtype::bf16, 128, 64, 64, arch_id::sm_90, pipeline::tma_wgmma, 8));
    // A wider tile of vector 1 has no twin registered: it stays.
    add(reg, make_conv_key(dir, dtype::bf16, 128, 128, 64, arch_id::sm_90, pipeline::tma_wgmma, 1));
    r = d.ranked(layer);
    ASSERT_EQ(r.size(), 2u);
    for (const auto& e : r) EXPECT_NE(e.first->key(), padded) << to_string(dir);
    const auto sel = d.select(layer);
    ASSERT_TRUE(sel);
    EXPECT_NE(sel.kernel->key(), padded);
    // Three input channels: the twin cannot take them, the padded-copy kernel runs the stem.
    const auto stem = grouped_conv_problem{}.batch(1).channels(3, 64).input_size({32, 32}).filter_size({3}).padding({1})
                          .dtype(dtype::bf16).direction(dir);
    r = d.ranked(stem);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r.front().first->key().algo.vector_in, 1);
    EXPECT_EQ(r.back().first->key().algo.vector_in, 1);
  }
}

// Dense backward-data of at most 8 input channels whose taps overlap (stems): where a direct_conv
// kernel takes it (its narrow-channel path), the implicit GEMMs are passed over; patchify stems
// (no overlap), wider layers and the forward direction keep them.
TEST(ConvDispatcher, NarrowChannelPathTakesStemsBackwardData) {
  registry reg;
  auto direct = make_conv_key(conv_direction::bwd_data, dtype::bf16, 8, 8, 64, arch_id::sm_90, pipeline::direct_conv, 1);
  direct.algo.warps = {16, 1, 1};
  direct.algo.warp_tile = {8, 1, 1};
  add(reg, direct);
  // A second direct key of 16-byte vectors: the estimate ranks it first (16-byte staging), the only one kept.
  auto direct16 = direct;
  direct16.algo.vector_in = direct16.algo.vector_out = 8;
  add(reg, direct16);
  add(reg, make_conv_key(conv_direction::bwd_data, dtype::bf16, 128, 64, 64, arch_id::sm_90, pipeline::tma_wgmma, 1));
  add(reg, make_conv_key(conv_direction::fwd, dtype::bf16, 128, 64, 64, arch_id::sm_90, pipeline::tma_wgmma, 1));
  conv_dispatcher d(sm90(), reg);
  auto bwd = [](grouped_conv_problem p) { return p.dtype(dtype::bf16).direction(conv_direction::bwd_data); };
  const auto resnet_stem = grouped_conv_problem{}.batch(32).channels(3, 64).input_size({224, 224}).filter_size({7})
                               .stride({2}).padding({3});
  const auto unet_stem = grouped_conv_problem{}.batch(1).channels(1, 64).input_size({572, 572}).filter_size({3});
  for (const auto& stem : {resnet_stem, unet_stem}) {
    const auto r = d.ranked(bwd(stem));
    ASSERT_EQ(r.size(), 1u) << stem.describe();
    EXPECT_EQ(r.front().first->key(), direct16);
    const auto sel = d.select(bwd(stem));
    ASSERT_TRUE(sel);
    EXPECT_EQ(sel.kernel->key(), direct16);
    EXPECT_NE(sel.explain().find("narrow-channel path: C <= 8 with overlapping taps"), std::string::npos)
        << sel.explain();
  }
  EXPECT_EQ(d.select(bwd(grouped_conv_problem{}.batch(1).channels(16, 64).input_size({56, 56}).filter_size({3})
                             .padding({1})))
                .explain()
                .find("narrow-channel path"),
            std::string::npos);
  const auto patchify = grouped_conv_problem{}.batch(1).channels(3, 96).input_size({224, 224}).filter_size({4})
                            .stride({4});
  // Off the narrow path the 16-byte direct key holds C = 3 to its vector: the GEMM and the other stay.
  EXPECT_EQ(d.ranked(bwd(patchify)).size(), 2u);
  const auto wide = grouped_conv_problem{}.batch(1).channels(16, 64).input_size({56, 56}).filter_size({3}).padding({1});
  EXPECT_EQ(d.ranked(bwd(wide)).size(), 3u);
  EXPECT_EQ(d.ranked(grouped_conv_problem(resnet_stem).dtype(dtype::bf16)).size(), 1u);  // forward: the GEMM
}

// 3-D stems (R3D-18's 3x7x7 stride 1x2x2, 3 -> 64) have no direct_conv keys: the sm_90 TMA + wgmma
// backward-data keys of 16-bit data run them on the narrow-channel kernel (narrow_bwd_data_plan::
// runs_on_path), and the dispatcher keeps one of them; cp.async and fp32 keys are not on the path.
TEST(ConvDispatcher, NarrowChannelPathTakesThreeDimensionalStemsOnTheSm90Keys) {
  auto three_d = [](grouped_conv_key k) {
    k.sig.ndim = 3;
    k.sig.lay = conv_layout::ndhwgc;
    return k;
  };
  registry reg;
  const auto tma = three_d(make_conv_key(conv_direction::bwd_data, dtype::bf16, 128, 64, 64, arch_id::sm_90,
                                         pipeline::tma_wgmma, 1));
  auto tma_wide = tma;
  tma_wide.algo.tile = {128, 128, 64};
  add(reg, tma);
  add(reg, tma_wide);
  add(reg, three_d(make_conv_key(conv_direction::bwd_data, dtype::bf16, 64, 64, 32, arch_id::sm_90, pipeline::cp_async, 1)));
  const auto fp32_tma = three_d(make_conv_key(conv_direction::bwd_data, dtype::fp32, 128, 64, 32, arch_id::sm_90,
                                              pipeline::tma_wgmma, 1));
  add(reg, fp32_tma);
  conv_dispatcher d(sm90(), reg);
  const auto stem = grouped_conv_problem{}.batch(2).channels(3, 64).input_size({16, 112, 112}).filter_size({3, 7, 7})
                        .stride({1, 2, 2}).padding({1, 3, 3}).direction(conv_direction::bwd_data);
  const auto r = d.ranked(grouped_conv_problem(stem).dtype(dtype::bf16));
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r.front().first->key().algo.pipe, pipeline::tma_wgmma);
  const auto sel = d.select(grouped_conv_problem(stem).dtype(dtype::bf16));
  ASSERT_TRUE(sel);
  EXPECT_NE(sel.explain().find("narrow-channel path"), std::string::npos) << sel.explain();
  EXPECT_FALSE(kernels::narrow_bwd_data_plan::runs_on_path(fp32_tma, grouped_conv_problem(stem).dtype(dtype::fp32)));
  // A 3-D layer of 64 input channels is no stem: every bf16 kernel stays a candidate.
  const auto deep = grouped_conv_problem{}.batch(2).channels(64, 64).input_size({8, 28, 28}).filter_size({3})
                        .padding({1}).direction(conv_direction::bwd_data).dtype(dtype::bf16);
  EXPECT_EQ(d.ranked(deep).size(), 3u);
}

TEST(ConvDispatcher, ThirtyTwoBitOffsetsOnDevicesOnly) {
  registry reg;
  add(reg, make_conv_key(conv_direction::fwd, dtype::bf16, 128, 128, 32));
  add(reg, make_conv_key(conv_direction::fwd, dtype::bf16, 64, 64, 256, arch_id::host, pipeline::host_blocked, 1));
  auto big = grouped_conv_problem{}.batch(256).channels(256, 256).input_size({256, 256}).filter_size({3})
                 .padding({1}).dtype(dtype::bf16);
  auto sel = conv_dispatcher(sm90(), reg).select(big);
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("the input spans 4294967296 elements: offsets overflow the kernel's 32-bit indexing"),
            std::string::npos)
      << sel.explain();
  EXPECT_TRUE(conv_dispatcher(device::host(), reg).select(big));
}

TEST(ConvDispatcher, KernelRefusalIsReported) {
  registry reg;
  auto k = add(reg, make_conv_key(conv_direction::bwd_weight, dtype::fp16, 128, 128, 32));
  k->refusal = "needs N x output pixels >= 64";
  conv_dispatcher d(sm90(), reg);
  auto sel = d.select(resnet_3x3().direction(conv_direction::bwd_weight));
  ASSERT_FALSE(sel);
  EXPECT_NE(sel.explain().find("needs N x output pixels >= 64"), std::string::npos);
}

TEST(ConvDispatcher, DeterministicRankingAndTieBreak) {
  registry reg;
  for (int tm : {64, 128, 256})
    for (int tn : {64, 128, 256}) add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, tm, tn, 32));
  conv_dispatcher d1(sm90(), reg), d2(sm90(), reg);
  for (auto p : {resnet_3x3(32), resnet_3x3(1), resnet_3x3(8).channels(512, 2048).filter_size({1}).padding({0}),
                 resnet_3x3(4).channels(256, 256).groups(32)}) {
    auto a = d1.select(p);
    auto b = d2.select(p);
    ASSERT_TRUE(a && b);
    EXPECT_EQ(a.kernel->name(), b.kernel->name());
    auto r = d1.ranked(p);
    ASSERT_EQ(r.size(), 9u);
    EXPECT_EQ(r.front().first->name(), a.kernel->name());
    for (std::size_t i = 1; i < r.size(); ++i) EXPECT_LE(r[i - 1].second, r[i].second);
  }
  // A wide pointwise layer prefers a wide tile_n; a grouped layer with 8 output channels per group a narrow one.
  EXPECT_GE(d1.select(resnet_3x3(32).channels(512, 2048).filter_size({1}).padding({0})).kernel->key().algo.tile.n, 128);
  EXPECT_EQ(d1.select(resnet_3x3(32).channels(256, 256).groups(32)).kernel->key().algo.tile.n, 64);
}

TEST(ConvDispatcher, InvalidProblemIsExplainedAndNotRun) {
  registry reg;
  auto k = add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32));
  conv_dispatcher d(sm90(), reg);
  auto st = d.run(resnet_3x3().channels(30, 64).groups(4), grouped_conv_args{});
  EXPECT_FALSE(st.is_ok());
  EXPECT_NE(st.message().find("invalid convolution problem: C = 30 is not divisible by G = 4"), std::string::npos)
      << st.message();
  EXPECT_EQ(k->runs.load(), 0);
}

TEST(ConvDispatcher, LendsAWorkspaceOnlyWhenTheCallerBringsNone) {
  registry reg;
  auto k = add(reg, make_conv_key(conv_direction::bwd_weight, dtype::fp16, 64, 64, 256, arch_id::host,
                                  pipeline::host_blocked, 1));
  k->wants_workspace = 4096;
  conv_dispatcher d(device::host(), reg);
  alignas(256) static std::uint16_t x[64], w[64], y[64];
  const auto p = resnet_3x3().direction(conv_direction::bwd_weight);
  ASSERT_TRUE(d.run(p, grouped_conv_args{x, w, y}).is_ok());
  EXPECT_NE(k->last_workspace, nullptr);
  EXPECT_GE(k->last_workspace_bytes, 4096u);
  alignas(256) static unsigned char mine[8192];
  grouped_conv_args with_own{x, w, y, mine, sizeof(mine)};
  ASSERT_TRUE(d.run(p, with_own).is_ok());
  EXPECT_EQ(k->last_workspace, mine);
}

TEST(ConvDispatcher, SeesKernelsRegisteredAfterConstruction) {
  registry reg;
  conv_dispatcher d(sm90(), reg);
  auto sel = d.select(resnet_3x3());
  EXPECT_FALSE(sel);
  EXPECT_EQ(sel.explain(), "no convolution kernel is registered for this device's arch");
  add(reg, make_conv_key(conv_direction::fwd, dtype::fp16, 128, 128, 32));
  EXPECT_TRUE(d.select(resnet_3x3()));
}

TEST(ConvDispatcher, GemmKernelsAreNotCandidates) {
  registry reg;
  conv_dispatcher d(device::host(), reg);
  EXPECT_EQ(d.select(resnet_3x3()).explain(), "no convolution kernel is registered for this device's arch");
}

}  // namespace
}  // namespace kdecl
