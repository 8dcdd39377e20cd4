// Properties of every convolution kernel the library ships (instances/conv_*.cpp), on any machine.
#include <gtest/gtest.h>

#include <set>
#include <utility>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/conv/conv_heuristic.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"
#include "kdecl/runtime/conv_check.hpp"

#include "../gpu/conv_odd_problems.hpp"

namespace kdecl {
namespace {

std::vector<std::shared_ptr<const conv_instance>> conv_kernels() {
  std::vector<std::shared_ptr<const conv_instance>> out;
  for (const auto& k : registry::global().all())
    if (k.instance->op() == op_kind::grouped_conv) out.push_back(std::static_pointer_cast<const conv_instance>(k.instance));
  return out;
}

TEST(ShippedConvInstances, AreRegisteredWithoutDuplicates) {
  EXPECT_TRUE(registry::global().check().is_ok()) << registry::global().check().message();
  auto sets = registry::global().set_names();
  std::set<std::string> names(sets.begin(), sets.end());
  for (const char* s : {"conv_host_fwd", "conv_host_bwd_data", "conv_host_bwd_weight"}) EXPECT_TRUE(names.count(s)) << s;
  // Every direction x layout x dtype on the host, and every layout of fp8 and bf8 data forward.
  std::set<std::tuple<conv_direction, conv_layout, dtype>> host;
  for (const auto& k : conv_kernels())
    if (k->arch() == arch_id::host) host.insert({k->key().sig.dir, k->key().sig.lay, k->key().sig.in});
  EXPECT_EQ(host.size(), 3u * 6u * 3u + 6u * 2u);
}

TEST(ShippedConvInstances, NamesAreUniqueAndParseBackToTheirKeys) {
  std::set<std::string> seen;
  for (const auto& k : conv_kernels()) {
    EXPECT_TRUE(seen.insert(k->name()).second) << k->name();
    EXPECT_EQ(parse_conv_name(k->name()), k->key()) << k->name();
    EXPECT_EQ(kernel_name(k->key()), k->name());
  }
  EXPECT_GT(seen.size(), 0u);
}

TEST(ShippedConvInstances, EveryKeyIsValidForItsArch) {
  for (const auto& k : conv_kernels()) {
    auto d = dsl::validate(k->key(), k->arch());
    EXPECT_TRUE(d.ok()) << k->name() << ": " << dsl::describe(d).view();
  }
}

// An odd problem of the kernel's signature: sizes that are multiples of nothing,
// groups, strides, dilation and asymmetric padding.
// (A kernel that reads its fusion at run time gets a problem without one.)
grouped_conv_problem odd_problem(const grouped_conv_signature& s) {
  grouped_conv_problem p;
  if (!s.fuse.dynamic) p.fuse(s.fuse);
  p.direction(s.dir).dtypes(s.in, s.wei, s.out).accumulator(s.acc).compute(s.compute).layout(s.lay);
  switch (s.ndim) {
    case 1:
      p.batch(3).channels(6, 9).groups(3).input_size({29}).filter_size({5}).stride({2}).dilation({2}).padding({3}, {1});
      break;
    case 2:
      p.batch(2).channels(6, 10).groups(2).input_size({13, 11}).filter_size({3}).stride({2, 1}).padding({1, 0}, {1, 2});
      break;
    default:
      p.batch(1).channels(4, 6).groups(2).input_size({5, 7, 6}).filter_size({3}).stride({1, 2, 2}).padding({1});
      break;
  }
  return p;
}

// Every host instance against the double reference (results poisoned first); the forward
// kernels, which read the fused epilogue from the problem, with none and with each part of one.
TEST(ShippedConvInstances, EveryHostInstanceMatchesTheReference) {
  conv_dispatcher dispatcher(device::host());
  const conv_fusion fusions[] = {{},
                                 {.act = elementwise::relu, .bias = true},
                                 {.act = elementwise::gelu, .bias = true, .residual = true},
                                 {.act = elementwise::sigmoid, .residual = true},
                                 {.act = elementwise::tanh}};
  int checked = 0, fused = 0;
  for (const auto& k : conv_kernels()) {
    if (k->arch() != arch_id::host) continue;
    const bool dynamic = k->key().sig.fuse.dynamic;
    EXPECT_EQ(dynamic, k->key().sig.dir == conv_direction::fwd) << k->name();
    for (const conv_fusion& f : fusions) {
      if (f.fused() && !dynamic) continue;
      auto p = odd_problem(k->key().sig).fuse(f);
      auto r = run_and_check(dispatcher, p, k->name(), 17 + checked + fused);
      EXPECT_TRUE(r.passed) << k->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
      if (f.fused()) ++fused;
    }
    ++checked;
  }
  // 3 directions x 6 layouts x (fp16, bf16, fp32, fp32 in tf32), and 16 forward kernels of 8-bit data
  // (fp8 and bf8 in every layout written in bf16, fp8 written in fp16 and fp32, fp8 x bf8 mixed).
  EXPECT_EQ(checked, 72 + 16);
  EXPECT_EQ(fused, (24 + 16) * 4);
}

// The dispatcher finds a shipped host kernel for real layers in every direction.
TEST(ShippedConvInstances, DispatcherRunsResNeXtAndDepthwiseLayersOnTheHost) {
  conv_dispatcher dispatcher(device::host());
  for (auto dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight}) {
    auto grouped = grouped_conv_problem{}.direction(dir).batch(2).channels(128, 128).groups(32).input_size({14, 14})
                       .filter_size({3}).padding({1}).dtype(dtype::bf16);
    auto depthwise = grouped_conv_problem{}.direction(dir).batch(1).channels(96, 96).groups(96).input_size({15, 15})
                         .filter_size({3}).stride({2}).padding({1}).dtype(dtype::fp16);
    for (const auto& p : {grouped, depthwise}) {
      auto r = run_and_check(dispatcher, p);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
      EXPECT_NE(r.kernel.find("_host"), std::string::npos);
    }
  }
}

// Where the CUDA sets are built: the backward kernels are planned offline for an H100
// (sm_90) as for forward ones: ResNet layers get a GPU kernel, bwd_weight's split-K
// workspace follows the depth, and what the vectors cannot take is refused with a reason.
TEST(ShippedConvInstances, BackwardGpuKernelsArePlannedOffline) {
  int backward = 0;
  for (const auto& k : conv_kernels())
    if (k->arch() == arch_id::sm_90 && k->key().sig.dir != conv_direction::fwd) ++backward;
  if (backward == 0) GTEST_SKIP() << "no CUDA convolution kernels in this build";
  conv_dispatcher dispatcher(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  auto layer = [](conv_direction d, std::int64_t n, std::int64_t hw, std::int64_t stride) {
    return grouped_conv_problem{}.direction(d).batch(n).channels(128, 128).input_size({hw, hw}).filter_size({3})
        .stride({stride}).padding({1}).dtype(dtype::bf16);
  };
  for (auto d : {conv_direction::bwd_data, conv_direction::bwd_weight})
    for (std::int64_t stride : {1, 2}) {
      auto sel = dispatcher.select(layer(d, 32, 28, stride));
      ASSERT_TRUE(sel) << sel.explain();
      // Backward-data may also run on the sm_90 forward kernel, by stride phases (conv_bwd_data_sm90.cuh),
      // backward-weight on the sm_90 crr GEMM (conv_bwd_weight_sm90.cuh).
      const bool sm90 = sel.kernel->name().find("_tma_wgmma_") != std::string::npos;
      EXPECT_TRUE(sm90 || sel.kernel->name().find("_cp_async_") != std::string::npos) << sel.kernel->name();
    }
  // The sm_90 backward-data kernels take strided layers too, one forward convolution per stride phase.
  int sm90_bwd_data = 0, halo_bwd_data = 0, rows_bwd_data = 0;
  for (const auto& k : conv_kernels()) {
    if (k->arch() != arch_id::sm_90 || k->key().sig.dir != conv_direction::bwd_data ||
        k->key().algo.pipe != pipeline::tma_wgmma || k->key().sig.ndim != 2 || k->key().sig.in != dtype::bf16 ||
        k->key().sig.lay != conv_layout::nhwgc || k->key().algo.groups_to_merge != 1)  // merged: grouped layers
      continue;
    const auto strided = layer(conv_direction::bwd_data, 32, 28, 2).normalized();
    if (k->key().sig.spec == conv_specialization::stride1_rows) {  // streamed rows: K/G = 64 and unit strides
      ++rows_bwd_data;
      const auto narrow = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(32).channels(128, 64)
                              .input_size({28, 28}).filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
      EXPECT_FALSE(conv_rejection(*k, narrow, nullptr)) << k->name();
      const auto wide = conv_rejection(*k, layer(conv_direction::bwd_data, 32, 28, 1).normalized(), nullptr);
      ASSERT_TRUE(wide) << k->name();
      EXPECT_NE(wide->find("needs 64 input channels per group, the problem has 128"), std::string::npos) << *wide;
      const auto why = conv_rejection(*k, strided, nullptr);
      ASSERT_TRUE(why) << k->name();
      EXPECT_NE(why->find("stride1_rows"), std::string::npos) << *why;
      continue;
    }
    EXPECT_FALSE(conv_rejection(*k, layer(conv_direction::bwd_data, 32, 28, 1).normalized(), nullptr)) << k->name();
    if (k->key().sig.spec == conv_specialization::stride1) {  // halo tiles: unit strides only, said so
      ++halo_bwd_data;
      const auto why = conv_rejection(*k, strided, nullptr);
      ASSERT_TRUE(why) << k->name();
      EXPECT_NE(why->find("stride1"), std::string::npos) << *why;
      continue;
    }
    ++sm90_bwd_data;
    const auto why = conv_rejection(*k, strided, nullptr);
    EXPECT_FALSE(why) << k->name() << ": " << why.value_or("");
    // The phases' taps (2x2, 2x1, 1x2, 1x1) are the filter's nine, each phase's copy aligned.
    EXPECT_GE(k->workspace_bytes(strided), 128u * 128 * 9 * 2);
    EXPECT_LE(k->workspace_bytes(strided), 128u * 128 * 9 * 2 + 5 * 128);
    // Its workspace holds the flipped, transposed weights (128 x 128 x 9 bf16) and alignment slack;
    // 1x1 layers without padding run as an rrr GEMM on the weights as they are, with none.
    EXPECT_GE(k->workspace_bytes(layer(conv_direction::bwd_data, 32, 28, 1).normalized()), 128u * 128 * 9 * 2);
    const auto pointwise = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(32).channels(256, 512)
                               .input_size({28, 28}).filter_size({1}).dtype(dtype::bf16).normalized();
    EXPECT_FALSE(conv_rejection(*k, pointwise, nullptr)) << k->name();
    EXPECT_EQ(k->workspace_bytes(pointwise), 0u) << k->name();
  }
  EXPECT_EQ(sm90_bwd_data, 6);  // three cooperative tiles, two pingpong ones, the 128x64 tile of any channel count
  EXPECT_EQ(halo_bwd_data, 5);  // conv_sm90_tma_halo_bwd_data.cpp: square, narrow, tall, pp_square, pp_narrow
  EXPECT_EQ(rows_bwd_data, 3);  // conv_sm90_tma_rows.cpp: 64, 128 and 192 pixels
  // bwd_weight: a deep reduction (32 x 56 x 56) is split over a lent fp32 workspace; a shallow one is not.
  auto deep = dispatcher.select(layer(conv_direction::bwd_weight, 32, 56, 1));
  auto shallow = dispatcher.select(layer(conv_direction::bwd_weight, 1, 7, 1));
  ASSERT_TRUE(deep && shallow);
  const auto deep_p = layer(conv_direction::bwd_weight, 32, 56, 1).normalized();
  EXPECT_GT(deep.kernel->workspace_bytes(deep_p), 0u);
  EXPECT_EQ(deep.kernel->workspace_bytes(deep_p) % (128 * 128 * 9 * sizeof(float)), 0u) << "whole fp32 partials";
  EXPECT_EQ(shallow.kernel->workspace_bytes(layer(conv_direction::bwd_weight, 1, 7, 1).normalized()), 0u);
  // Three input channels (the RGB stem): no cp.async or 16-byte vector fits; the sm_90 kernels that
  // read the input and weights element by element take it, 2-D and 3-D, in every direction, but the
  // 2-D backward-data, which goes to the direct kernels' narrow-channel path (16-byte dy staging).
  for (auto d : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight})
    for (auto stem : {grouped_conv_problem{}.batch(1).channels(3, 64).input_size({224, 224}).filter_size({7})
                          .stride({2}).padding({3}),
                      grouped_conv_problem{}.batch(2).channels(3, 64).input_size({16, 112, 112}).filter_size({3, 7, 7})
                          .stride({1, 2, 2}).padding({1, 3, 3})}) {
      stem.direction(d).dtype(dtype::bf16);
      auto sel = dispatcher.select(stem);
      ASSERT_TRUE(sel) << stem.describe() << ": " << sel.explain();
      if (d == conv_direction::fwd && stem.ndim() == 2) continue;  // the direct kernel may take it too
      if (d == conv_direction::bwd_data && stem.ndim() == 2) {
        EXPECT_EQ(sel.kernel->key().algo.pipe, pipeline::direct_conv) << sel.kernel->name();
        EXPECT_EQ(sel.kernel->key().algo.vector_out, 8) << sel.kernel->name();
        EXPECT_EQ(sel.kernel->workspace_bytes(stem.normalized()), 0u) << sel.kernel->name();
        continue;
      }
      EXPECT_EQ(sel.kernel->key().algo.pipe, pipeline::tma_wgmma) << sel.kernel->name();
      EXPECT_EQ(sel.kernel->key().algo.vector_in, 1) << sel.kernel->name();
      // Forward and backward-weight read the input through a copy padded to 8 channels, in the workspace.
      if (d != conv_direction::bwd_data)
        EXPECT_GE(sel.kernel->workspace_bytes(stem.normalized()),
                  std::size_t(stem.n * 8 * stem.normalized().input_pixels() * 2))
            << sel.kernel->name();
    }
  // A layer the 16-byte kernel takes as it is runs without copies: no workspace for them.
  for (const auto& k : conv_kernels())
    if (k->arch() == arch_id::sm_90 && k->key().sig.dir == conv_direction::bwd_weight &&
        k->key().algo.vector_in == 1 && k->key().sig.ndim == 2 && k->key().sig.in == dtype::bf16 &&
        k->key().sig.lay == conv_layout::nhwgc)
      EXPECT_EQ(k->workspace_bytes(layer(conv_direction::bwd_weight, 1, 7, 1).normalized()), 0u) << k->name();
  // K/G = 20 (dY gathered in 16-byte vectors): dY and the weights through channel-padded copies.
  auto odd_k = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(1).channels(3, 20)
                   .input_size({32, 32}).filter_size({3}).padding({1}).dtype(dtype::bf16);
  auto sel = dispatcher.select(odd_k);
  ASSERT_TRUE(sel) << sel.explain();  // the direct kernel (stride 1) or the any-channel one
  int any_channel = 0;
  for (const auto& k : conv_kernels()) {
    const auto& key = k->key();
    if (k->arch() != arch_id::sm_90 || key.sig.dir != conv_direction::bwd_data || key.algo.pipe != pipeline::tma_wgmma ||
        key.algo.vector_out != 1 || key.sig.ndim != 2 || key.sig.in != dtype::bf16 || key.sig.lay != conv_layout::nhwgc)
      continue;
    ++any_channel;
    EXPECT_FALSE(conv_rejection(*k, odd_k.normalized(), nullptr)) << k->name();
    EXPECT_GE(k->workspace_bytes(odd_k.normalized()), std::size_t(1 * 24 * 32 * 32 * 2)) << "dY' with K/G = 24";
  }
  EXPECT_EQ(any_channel, 1);
  // ConvNeXt's 4x4 stride-4 stem: one GEMM into [N x 56 x 56][16 taps x 3] rows of the workspace
  // (then scattered to dx), instead of 16 one-tap phases.
  for (const auto& k : conv_kernels()) {
    const auto& key = k->key();
    if (k->arch() != arch_id::sm_90 || key.sig.dir != conv_direction::bwd_data || key.algo.pipe != pipeline::tma_wgmma ||
        key.sig.ndim != 2 || key.sig.in != dtype::bf16)
      continue;
    const auto patchify = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(2).channels(3, 96)
                              .input_size({224, 224}).filter_size({4}).stride({4}).dtype(dtype::bf16).normalized();
    if (conv_rejection(*k, patchify, nullptr)) continue;  // a 16-byte kernel: C/G = 3 is the any-channel one's
    const std::size_t rows = 2 * 56 * 56 * 16 * 3 * 2;
    EXPECT_EQ(k->workspace_bytes(patchify), 128 + (rows + 127) / 128 * 128) << k->name();
  }
}

// The direct backward-data kernels take grouped layers of stride 1 (ResNeXt's C/G = 4) as the forward
// convolution of dY with the flipped weights, which they copy into the workspace; a strided grouped layer
// is refused with the rule, and so is a dense one of more than 8 input channels (stems take the narrow path).
TEST(ShippedConvInstances, DirectBackwardDataTakesStrideOneGroupedLayers) {
  const auto grouped = [](std::int64_t stride) {
    return grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(32).channels(128, 128).groups(32)
        .input_size({56, 56}).filter_size({3}).stride({stride}).padding({1}).dtype(dtype::bf16).normalized();
  };
  int direct = 0;
  for (const auto& k : conv_kernels()) {
    const auto& key = k->key();
    if (k->arch() != arch_id::sm_90 || key.sig.dir != conv_direction::bwd_data ||
        key.algo.pipe != pipeline::direct_conv || key.sig.ndim != 2 || key.sig.in != dtype::bf16)
      continue;
    ++direct;
    EXPECT_FALSE(conv_rejection(*k, grouped(1), nullptr)) << k->name();
    EXPECT_EQ(k->workspace_bytes(grouped(1)), 128u + 128 * 4 * 9 * 2) << k->name();
    const auto why = conv_rejection(*k, grouped(2), nullptr);
    ASSERT_TRUE(why) << k->name();
    EXPECT_NE(why->find("and grouped layers (G > 1) of stride 1 only; G = 32, C/G = 4, K/G = 4, stride 2x2"),
              std::string::npos)
        << *why;
    // A dense layer of at most 8 input channels takes the narrow-channel path (no workspace); a
    // wider one stays with the implicit GEMMs.
    const auto stem = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(1).channels(1, 64)
                          .input_size({572, 572}).filter_size({3}).dtype(dtype::bf16).normalized();
    EXPECT_FALSE(conv_rejection(*k, stem, nullptr)) << k->name();
    EXPECT_EQ(k->workspace_bytes(stem), 0u) << k->name();
    const auto dense = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(1).channels(16, 64)
                           .input_size({56, 56}).filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
    const auto dense_why = conv_rejection(*k, dense, nullptr);
    ASSERT_TRUE(dense_why) << k->name();
    EXPECT_NE(dense_why->find("dense layers of at most 8 input channels (1-D and 2-D)"), std::string::npos)
        << *dense_why;
  }
  if (direct == 0) GTEST_SKIP() << "no CUDA convolution kernels in this build";
}

// The merged-groups kernels (groups_to_merge m > 1: m groups side by side in one 128x64 tile) take
// ResNeXt-50's grouped 3x3 layers (32 groups of 4 to 32 channels) with m x K/G up to 64, and refuse
// what they cannot merge with the reason; offline, the dispatcher's ranking knows their cost
// (the analytical model: the learned one is checked against the sets it was trained on).
TEST(ShippedConvInstances, MergedGroupKernelsTakeResNeXtLayers) {
  const auto resnext = [](conv_direction d, std::int64_t width, std::int64_t hw) {
    return grouped_conv_problem{}.direction(d).batch(32).channels(width, width).groups(32).input_size({hw, hw})
        .filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
  };
  int merged = 0;
  for (const auto& k : conv_kernels()) {
    const auto& key = k->key();
    if (k->arch() != arch_id::sm_90 || key.algo.groups_to_merge == 1 || key.sig.in != dtype::bf16) continue;
    ++merged;
    const int m = key.algo.groups_to_merge;
    const std::int64_t width = 32 * 64 / m;  // m x K/G = 64: one tile's width
    const auto layer = resnext(key.sig.dir, width, 28);
    const auto taken = conv_rejection(*k, layer, nullptr);
    EXPECT_FALSE(taken) << k->name() << " on " << layer.describe() << ": " << taken.value_or("");
    const auto odd_groups = grouped_conv_problem{}.direction(key.sig.dir).batch(1).channels(30 * 8, 30 * 8).groups(30)
                                .input_size({14, 14}).filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
    const auto why = conv_rejection(*k, odd_groups, nullptr);
    if (30 % m != 0) {
      ASSERT_TRUE(why) << k->name();
      EXPECT_NE(why->find("is not a multiple of the kernel's groups_to_merge"), std::string::npos) << *why;
    }
  }
  if (merged == 0) GTEST_SKIP() << "no merged-groups convolution kernels in this build";
  EXPECT_EQ(merged, 16);  // m = 2, 4, 8, 16; forward and backward-data; cooperative and pingpong
  conv_dispatcher dispatcher(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  dispatcher.clear_tiers();  // the analytical model
  // 8 and 16 channels per group at 28x28: the merge that makes m x K/G = 64, not a wider one
  // (whose zeros cost more and whose estimate must say so).
  for (std::int64_t width : {256, 512}) {
    const auto layer = resnext(conv_direction::fwd, width, 28);
    const auto sel = dispatcher.select(layer);
    ASSERT_TRUE(sel) << sel.explain();
    EXPECT_EQ(sel.kernel->key().algo.groups_to_merge, 32 * 64 / width) << layer.describe() << ": " << sel.explain();
  }
}

// The ranking's estimates are the cost model's, estimate_microseconds(key, p), for every shipped kernel
// it ranks: the learned model was trained on those as features and must be fed the same at selection
// (the ranking shares one problem profile where a kernel does not change the GEMM it runs).
TEST(ShippedConvInstances, RankingEstimatesAreTheCostModels) {
  int sm90 = 0;
  for (const auto& k : conv_kernels()) sm90 += k->arch() == arch_id::sm_90;
  if (sm90 == 0) GTEST_SKIP() << "no CUDA convolution kernels in this build";
  conv_dispatcher dispatcher(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  dispatcher.clear_tiers();
  auto layer = [](conv_direction d, std::int64_t c, std::int64_t g, std::int64_t hw, std::int64_t filter,
                  std::int64_t stride) {
    return grouped_conv_problem{}.direction(d).batch(8).channels(c, c).groups(g).input_size({hw, hw})
        .filter_size({filter}).stride({stride}).padding({filter / 2}).dtype(dtype::bf16);
  };
  int ranked = 0;
  for (auto d : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight})
    for (const auto& p : {layer(d, 64, 1, 56, 3, 1), layer(d, 256, 1, 28, 3, 2), layer(d, 256, 32, 28, 3, 1),
                          layer(d, 512, 32, 28, 3, 2), layer(d, 128, 1, 14, 1, 1), layer(d, 96, 96, 28, 3, 1)})
      for (const auto& [kernel, us] : dispatcher.ranked(p)) {
        ++ranked;
        const double model = estimate_microseconds(kernel->key(), p.normalized());
        EXPECT_NEAR(us, model, 1e-9 * model) << kernel->name() << " on " << p.describe();
      }
  EXPECT_GT(ranked, 100);
}

// No valid convolution is refused on an H100 (planned offline): every direction, rank and dtype
// (fp16, bf16, fp32 exact and in tf32) over channel counts per group that no vector divides
// (1, 3, 5, 13, 20), that some do (8, 16, 64), groups, strides, 1x1 filters and group-major
// layouts all find a GPU kernel, one that multiplies in the problem's precision.
TEST(ShippedConvInstances, NoValidProblemIsRefusedOnSm90) {
  int sm90 = 0;
  for (const auto& k : conv_kernels()) sm90 += k->arch() == arch_id::sm_90;
  if (sm90 == 0) GTEST_SKIP() << "no CUDA convolution kernels in this build";
  conv_dispatcher dispatcher(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  int problems = 0;
  std::string refused;
  for (auto dir : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight})
    for (int ndim : {1, 2, 3})
      for (auto [d, compute] : {std::pair{dtype::fp16, dtype::fp16}, {dtype::bf16, dtype::bf16},
                                {dtype::fp32, dtype::fp32}, {dtype::fp32, dtype::tf32}})
        for (std::int64_t c : {1, 3, 5, 8, 13, 16, 20, 64})
          for (std::int64_t k : {1, 3, 5, 8, 13, 16, 20, 64})
            for (std::int64_t g : {1, 3}) {
              const std::int64_t stride = (c + k) % 2 + 1, filter = c % 3 == 2 ? 1 : 3;
              auto p = grouped_conv_problem{}.direction(dir).batch(2).channels(c * g, k * g).groups(g)
                           .filter_size({filter}).stride({stride}).padding({filter / 2}).dtype(d);
              p.compute(compute);
              if (ndim == 1) p.input_size({19});
              if (ndim == 2) p.input_size({11, 9});
              if (ndim == 3) p.input_size({5, 6, 7});
              // Every other problem group-major (gnwc, gnhwc, gndhwc), the rest channels-last.
              if ((c + k + g) % 2 == 1)
                p.layout(ndim == 1 ? conv_layout::gnwc : ndim == 2 ? conv_layout::gnhwc : conv_layout::gndhwc);
              ++problems;
              auto sel = dispatcher.select(p);
              if (!sel) refused += "\n  " + p.describe() + ": " + sel.explain();
              else if (sel.kernel->key().sig.compute != compute) refused += "\n  " + p.describe() + ": " + sel.kernel->name();
            }
  EXPECT_EQ(problems, 3 * 3 * 4 * 8 * 8 * 2);
  EXPECT_TRUE(refused.empty()) << "refused:" << refused;
}

// 8-bit floating data forward (sm90/conv_fwd_fp8_sm90.cuh): every channel count, group count, rank and
// layout of the signatures the host set computes gets an sm_90 kernel (operands the fp8 GEMM cannot
// load in place go through the workspace), and a fused epilogue runs as the epilogue pass after it.
TEST(ShippedConvInstances, NoValidFp8ProblemIsRefusedOnSm90) {
  int fp8 = 0;
  for (const auto& k : conv_kernels()) fp8 += k->arch() == arch_id::sm_90 && k->key().sig.in == dtype::fp8;
  if (fp8 == 0) GTEST_SKIP() << "no CUDA 8-bit convolution kernels in this build";
  conv_dispatcher dispatcher(device{arch_id::sm_90, -1, "sm_90 (offline)"});
  int problems = 0;
  std::string refused;
  const dtype eight[][3] = {{dtype::fp8, dtype::fp8, dtype::bf16}, {dtype::bf8, dtype::bf8, dtype::bf16},
                            {dtype::fp8, dtype::fp8, dtype::fp16}, {dtype::fp8, dtype::fp8, dtype::fp32},
                            {dtype::fp8, dtype::bf8, dtype::bf16}, {dtype::bf8, dtype::fp8, dtype::bf16}};
  for (const auto& types : eight)
    for (int ndim : {1, 2, 3})
      for (std::int64_t c : {1, 3, 5, 16, 20, 64})
        for (std::int64_t k : {1, 3, 13, 16, 64})
          for (std::int64_t g : {1, 3}) {
            const bool mixed = types[0] != types[1] || types[2] != dtype::bf16;
            if (mixed && ndim != 2) continue;  // those signatures are declared channels-last 2-D (as on the host)
            const std::int64_t stride = (c + k) % 2 + 1, filter = c % 3 == 2 ? 1 : 3;
            auto p = grouped_conv_problem{}.batch(2).channels(c * g, k * g).groups(g).filter_size({filter})
                         .stride({stride}).padding({filter / 2}).dtypes(types[0], types[1], types[2]);
            p.compute(types[0]);
            if (ndim == 1) p.input_size({19});
            if (ndim == 2) p.input_size({11, 9});
            if (ndim == 3) p.input_size({5, 6, 7});
            if (!mixed && (c + k + g) % 2 == 1)
              p.layout(ndim == 1 ? conv_layout::gnwc : ndim == 2 ? conv_layout::gnhwc : conv_layout::gndhwc);
            ++problems;
            const auto sel = dispatcher.select(p);
            if (!sel) refused += "\n  " + p.describe() + ": " + sel.explain();
            else if (sel.kernel->key().sig.in != types[0]) refused += "\n  " + p.describe() + ": " + sel.kernel->name();
          }
  EXPECT_GT(problems, 500);
  EXPECT_TRUE(refused.empty()) << "refused:" << refused;
  auto fused = grouped_conv_problem{}.batch(2).channels(64, 64).input_size({14, 14}).filter_size({3}).padding({1})
                   .dtypes(dtype::fp8, dtype::fp8, dtype::bf16).bias().activation(elementwise::relu);
  fused.compute(dtype::fp8);
  const auto sel = dispatcher.select(fused);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_TRUE(sel.composed_epilogue) << sel.kernel->name();
}

// Every forward implicit-GEMM kernel built for a GPU (cp_async, tma_wgmma) accepts at least one of the
// problems its only GPU test runs (ConvGpuInstances.MatchTheHostReference), so none ships untested.
TEST(ShippedConvInstances, EveryForwardImplicitGemmTakesAGpuTestProblem) {
  int kernels = 0;
  for (const auto& k : conv_kernels()) {
    if (k->arch() == arch_id::host || !conv_test::is_forward_implicit_gemm(*k)) continue;
    ++kernels;
    int taken = 0;
    std::string reasons;
    for (auto p : conv_test::odd_problems(k->key().sig.ndim)) {
      const auto& s = k->key().sig;
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay).fuse(s.fuse);
      if (auto why = conv_rejection(*k, p.normalized(), nullptr)) reasons += "\n  " + p.describe() + ": " + *why;
      else ++taken;
    }
    EXPECT_GT(taken, 0) << k->name() << " takes none of the GPU test's problems:" << reasons;
  }
  if (kernels == 0) GTEST_SKIP() << "no GPU convolution kernels in this build";
}

}  // namespace
}  // namespace kdecl
