// Every shipped backward convolution kernel (bwd_data by stride phases,
// bwd_weight with split-K) for the GPU present, on random data against the
// double host reference, the computed tensor (and the workspace) poisoned first
// so that NaN never passes: odd C/K, odd spatial sizes, stride 2 and 3, dilation
// 2, asymmetric padding, 1x1 stride 2, a stride larger than the filter (phases no
// tap reaches), dilation beyond the stride, G > 1, 1-D and 3-D; bwd_data with
// K/G = 64 and strides (the sm_90 phases' TMA loads of dY and of W as stored, or of its
// flipped copy where TMA cannot read W); bwd_weight both with
// one depth range (direct) and several (fp32 partials and the reduction), and with
// C/G = 64 (the sm_90 kernel's TMA producer; other C/G take its gather); stems and odd C/G
// (C/G = 1, 3, 13: the sm_90 kernels reading the input element by element), odd K/G
// (5, 7, 20: dY, W and dW through channel-padded copies), patchify layers with groups; the sm_90
// backward-weight under forced depth splits (clusters, ranges, both). Label `gpu`.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/runtime/conv_check.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

using testing::cuda_device;

std::vector<std::shared_ptr<const conv_instance>> backward_kernels_for(arch_id arch, conv_direction dir) {
  std::vector<std::shared_ptr<const conv_instance>> out;
  for (const auto& k : registry::global().all())
    if (k.instance->op() == op_kind::grouped_conv && k.instance->arch() == arch) {
      auto c = std::static_pointer_cast<const conv_instance>(k.instance);
      if (c->key().sig.dir == dir) out.push_back(c);
    }
  return out;
}

std::vector<grouped_conv_problem> backward_problems(int ndim) {
  using P = grouped_conv_problem;
  switch (ndim) {
    case 1:
      return {P{}.batch(2).channels(16, 24).input_size({101}).filter_size({5}).stride({3}).dilation({2}).padding({4}),
              P{}.batch(3).channels(8, 8).groups(2).input_size({33}).filter_size({3}).stride({2}).padding({0}, {2}),
              // a waveform's first convolution (C = 1): dx per element, the input padded (bwd_weight)
              P{}.batch(2).channels(1, 32).input_size({403}).filter_size({10}).stride({5}),
              // odd C and K (5, 7): every operand through channel-padded copies
              P{}.batch(3).channels(5, 7).input_size({29}).filter_size({3}).stride({2}).padding({1})};
    case 3:
      return {P{}.batch(1).channels(8, 16).input_size({5, 9, 9}).filter_size({3}).stride({1, 2, 2}).padding({1}),
              P{}.batch(3).channels(16, 16).groups(2).input_size({4, 7, 6}).filter_size({3, 1, 3}).padding({1, 0, 1}),
              P{}.batch(2).channels(16, 32).input_size({7, 9, 11}).filter_size({3}).stride({2}).padding({1}, {0}),
              // C/G = 64: the sm_90 bwd_weight's TMA producer (5-D im2col loads)
              P{}.batch(2).channels(64, 40).input_size({5, 8, 9}).filter_size({3}).padding({1, 0, 1}, {1, 1, 0}),
              // K/G = 64, strided: the sm_90 bwd_data's phases on TMA loads of dY
              P{}.batch(1).channels(16, 64).input_size({5, 9, 8}).filter_size({3}).stride({2}).padding({1}),
              // K/G = 64, stride 1: the stride1 specialization's halo tiles (dilation 2 in depth)
              P{}.batch(2).channels(24, 64).input_size({6, 9, 17}).filter_size({3}).dilation({2, 1, 1}).padding({2, 1, 1}),
              // a video stem (C = 3): dx stored per element, the input padded (bwd_weight)
              P{}.batch(2).channels(3, 16).input_size({4, 15, 13}).filter_size({3, 7, 7}).stride({1, 2, 2})
                  .padding({1, 3, 3}),
              // K/G = 20 and odd C and K: dY (and W, dW) through channel-padded copies
              P{}.batch(2).channels(16, 20).input_size({4, 7, 6}).filter_size({3}).padding({1}),
              P{}.batch(1).channels(5, 3).input_size({5, 6, 7}).filter_size({3}).stride({2}).padding({1})};
    default:
      return {
          P{}.batch(3).channels(24, 40).input_size({17, 13}).filter_size({3}).dilation({2}).padding({2}),     // dilation 2
          P{}.batch(2).channels(16, 32).input_size({15, 12}).filter_size({3}).stride({2}).padding({0, 1}, {1, 2}),
          P{}.batch(1).channels(8, 64).input_size({37, 41}).filter_size({7}).stride({2}).padding({3}),        // 7x7 s2
          P{}.batch(2).channels(32, 24).input_size({19, 23}).filter_size({3}).stride({3}).padding({1}),       // stride 3
          P{}.batch(3).channels(64, 128).input_size({14, 13}).filter_size({1}).stride({2}),                   // 1x1 s2
          P{}.batch(2).channels(16, 16).input_size({11, 11}).filter_size({2}).stride({4}).padding({1}, {0}),  // no-tap phases
          P{}.batch(1).channels(48, 32).groups(2).input_size({9, 11}).filter_size({3}).padding({1}),          // G = 2
          P{}.batch(2).channels(256, 256).groups(32).input_size({14, 14}).filter_size({3}).padding({1}),      // G = 32
          P{}.batch(1).channels(6, 10).input_size({21, 17}).filter_size({3}).padding({1}),                    // C/G = 6, K/G = 10
          P{}.batch(4).channels(32, 64).input_size({40, 40}).filter_size({3}).padding({1}),                   // split-K
          // Halo tiles (stride1: K/G a multiple of 64): W = 21 and asymmetric padding, C = 40 dx channels
          P{}.batch(3).channels(40, 128).input_size({13, 21}).filter_size({3}).padding({1, 0}, {0, 1}),
          // Streamed rows (stride1_rows: K/G = 64, dY's channels; 3x3): 72 dx channels (two blocks of
          // 64), three strips of 192 pixels; G = 2 with C/G = 40
          P{}.batch(1).channels(72, 64).input_size({9, 401}).filter_size({3}).padding({1}),
          P{}.batch(2).channels(80, 128).groups(2).input_size({11, 23}).filter_size({3}).padding({1, 0}, {0, 1}),
          P{}.batch(3).channels(128, 256).input_size({28, 28}).filter_size({3}).stride({2}).padding({1}),
          P{}.batch(2).channels(64, 96).input_size({13, 11}).filter_size({1}),                  // 1x1 stride 1 (a GEMM)
          P{}.batch(3).channels(64, 32).groups(4).input_size({9, 7}).filter_size({1}),          // 1x1, G = 4
          // C/G = 64: the sm_90 bwd_weight's TMA producer (im2col loads): G = 2 with K/G = 48,
          // dilation 2 and asymmetric padding; a deep, strided layer split over ranges
          P{}.batch(3).channels(128, 96).groups(2).input_size({23, 19}).filter_size({3}).dilation({2})
              .padding({2, 1}, {1, 2}),
          P{}.batch(8).channels(64, 64).input_size({30, 30}).filter_size({3}).stride({2}).padding({1}),
          // dilation 3 > stride 2: phases whose first dx pixels meet no dY (bwd_data; K/G = 64: TMA on sm_90)
          P{}.batch(2).channels(16, 64).input_size({17, 15}).filter_size({3}).stride({2}).dilation({3}).padding({1}),
          // K/G = 64 strided, sm_90 bwd_data: G = 2 reads W as stored (the group's lines); C/G = 12 cannot
          // (W's lines 24 bytes apart, which TMA cannot step) and takes the flipped copy
          P{}.batch(2).channels(32, 128).groups(2).input_size({13, 12}).filter_size({3}).stride({2}).padding({1, 0}, {0, 1}),
          P{}.batch(2).channels(12, 64).input_size({15, 13}).filter_size({3}).stride({2}).padding({1}),
          // Stems and odd C/G (3, 1, 13 with G = 2): dx stored per element (bwd_data), the input and dW
          // through channel-padded copies (bwd_weight); a ResNet stem deep enough to split bwd_weight
          P{}.batch(2).channels(3, 64).input_size({37, 41}).filter_size({7}).stride({2}).padding({3}),
          P{}.batch(3).channels(1, 16).input_size({19, 21}).filter_size({3}),
          P{}.batch(1).channels(3, 24).input_size({32, 28}).filter_size({4}).stride({4}),
          P{}.batch(2).channels(26, 32).groups(2).input_size({11, 9}).filter_size({3}).padding({1}),
          P{}.batch(8).channels(3, 32).input_size({96, 96}).filter_size({3}).stride({2}).padding({1}),
          // K/G = 20, 7 and 5 (C/G = 3, 5, 3; G = 1 and 3): dY through a channel-padded copy, W's
          // (bwd_data) and dW's (bwd_weight) output channels padded
          P{}.batch(2).channels(3, 20).input_size({32, 32}).filter_size({3}).padding({1}),
          P{}.batch(3).channels(5, 7).input_size({11, 12}).filter_size({3}).stride({2}).padding({1}),
          P{}.batch(1).channels(9, 15).groups(3).input_size({10, 9}).filter_size({3}).padding({1}),
          P{}.batch(4).channels(16, 20).input_size({30, 30}).filter_size({3}).stride({2}).padding({1}),
          // Patchify layers with groups (stride = filter, no padding: one GEMM per group on W as stored,
          // then the scatter), K/G = 16 as it is and K/G = 12 through the channel-padded dY
          P{}.batch(2).channels(16, 32).groups(2).input_size({12, 10}).filter_size({2}).stride({2}),
          P{}.batch(3).channels(16, 24).groups(2).input_size({9, 12}).filter_size({3}).stride({3}),
          // Merged groups (backward-data, groups_to_merge > 1): C/G = K/G = 4 of stride 2 (phases) and
          // C/G = 12, K/G = 20 of stride 1 (the flipped weights' rows of 20 channels, in 8-byte halves).
          P{}.batch(2).channels(128, 128).groups(32).input_size({14, 13}).filter_size({3}).stride({2}).padding({1}),
          P{}.batch(2).channels(96, 160).groups(8).input_size({11, 10}).filter_size({3}).padding({1}),
      };
  }
}

void check_every_kernel(conv_direction dir) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  int checked = 0, refused = 0, kernels = 0;
  for (const auto& k : backward_kernels_for(dev->arch, dir)) {
    ++kernels;
    int seed = 0, checked_here = 0;
    for (auto p : backward_problems(k->key().sig.ndim)) {
      const auto& s = k->key().sig;
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay);
      if (auto why = conv_rejection(*k, p.normalized(), nullptr)) {
        ++refused;
        continue;
      }
      try {
        auto r = run_and_check(dispatcher, p, k->name(), 300 + seed++);
        EXPECT_TRUE(r.passed) << k->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
        ++checked;
        ++checked_here;
      } catch (const std::exception& e) {
        ADD_FAILURE() << k->name() << " on " << p.describe() << ": " << e.what();
      }
    }
    // The merged-groups kernels have no other GPU test.
    if (k->key().algo.groups_to_merge > 1) EXPECT_GT(checked_here, 0) << k->name() << " ran no problem";
  }
  std::printf("%d %s kernels for %s: %d runs checked, %d (kernel, problem) pairs refused\n", kernels,
              std::string(to_string(dir)).c_str(), std::string(to_string(dev->arch)).c_str(), checked, refused);
  EXPECT_GT(kernels, 0);
  EXPECT_GT(checked, 0);
}

TEST(ConvBwdGpu, EveryBwdDataKernelMatchesTheHostReference) { check_every_kernel(conv_direction::bwd_data); }
TEST(ConvBwdGpu, EveryBwdWeightKernelMatchesTheHostReference) { check_every_kernel(conv_direction::bwd_weight); }

// The sm_90 backward-weight under every kind of depth split, forced through
// KDECL_CONV_BWD_WEIGHT_SPLIT=CLUSTER,RANGES: clusters alone (the reduction through
// distributed shared memory), ranges alone (fp32 partials and the second kernel), and both;
// the TMA producer (C/G = 64) and the gather (C/G = 24). A split the kernel cannot run on a
// problem (a cluster where it has none, an empty range) leaves the planned one.
TEST(ConvBwdGpu, Sm90BwdWeightMatchesTheReferenceUnderEverySplit) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  if (dev->arch != arch_id::sm_90) GTEST_SKIP() << "the sm_90 kernels only";
  conv_dispatcher dispatcher(*dev);
  struct unset_split {
    ~unset_split() { unsetenv("KDECL_CONV_BWD_WEIGHT_SPLIT"); }
  } restore;
  const grouped_conv_problem problems[] = {
      // 2 x 40 x 40 output pixels: 50 k-blocks of 64, enough for 4 x 11 parts.
      grouped_conv_problem{}.batch(2).channels(64, 72).input_size({40, 40}).filter_size({3}).padding({1}),
      grouped_conv_problem{}.batch(3).channels(24, 40).input_size({37, 41}).filter_size({3}).padding({1, 0}),
  };
  int checked = 0;
  for (const auto& k : backward_kernels_for(arch_id::sm_90, conv_direction::bwd_weight)) {
    if (k->key().algo.pipe != pipeline::tma_wgmma) continue;
    int seed = 0;
    for (auto p : problems) {
      const auto& sig = k->key().sig;
      if (sig.ndim != 2) continue;
      p.direction(sig.dir).dtypes(sig.in, sig.wei, sig.out).compute(sig.compute).layout(sig.lay);
      if (conv_rejection(*k, p.normalized(), nullptr)) continue;
      for (const char* split : {"2,1", "4,1", "8,1", "1,3", "2,3", "4,11"}) {
        setenv("KDECL_CONV_BWD_WEIGHT_SPLIT", split, 1);
        try {
          auto r = run_and_check(dispatcher, p, k->name(), 900 + seed++);
          EXPECT_TRUE(r.passed) << k->name() << " split " << split << " on " << p.describe() << ": error " << r.error
                                << " > " << r.tolerance;
          ++checked;
        } catch (const std::exception& e) {
          ADD_FAILURE() << k->name() << " split " << split << " on " << p.describe() << ": " << e.what();
        }
      }
    }
  }
  std::printf("sm_90 backward-weight under forced splits: %d runs checked\n", checked);
  EXPECT_GT(checked, 0);
}

// The sm_90 backward-data phases read W as stored (no flipped copy, no workspace) where TMA maps
// every phase's dY and W, else they take the flipped copy: both routes of every such key against
// the reference, told apart by the workspace each asks for.
TEST(ConvBwdGpu, Sm90BwdDataReadsTheWeightsAsStoredWhereTmaMapsThem) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  if (dev->arch != arch_id::sm_90) GTEST_SKIP() << "the sm_90 kernels only";
  conv_dispatcher dispatcher(*dev);
  using P = grouped_conv_problem;
  struct route {
    P problem;
    bool stored;
  };
  const route routes[] = {
      {P{}.batch(2).channels(16, 64).input_size({15, 17}).filter_size({3}).stride({2}).padding({1}), true},
      {P{}.batch(1).channels(64, 128).input_size({9, 11}).filter_size({1}).stride({2}), true},  // 1x1 s2: one line
      {P{}.batch(1).channels(8, 64).input_size({7, 9, 8}).filter_size({3}).stride({2}).padding({1}), true},  // 3-D
      {P{}.batch(2).channels(12, 64).input_size({15, 13}).filter_size({3}).stride({2}).padding({1}), false},
  };
  int stored = 0, copied = 0;
  for (const auto& k : backward_kernels_for(arch_id::sm_90, conv_direction::bwd_data)) {
    const auto& key = k->key();
    if (key.algo.pipe != pipeline::tma_wgmma || key.sig.spec != conv_specialization::none ||
        key.algo.groups_to_merge != 1)
      continue;
    // Keys of one-element vectors (any channel count) may also ask for channel-padded copies.
    const bool copies_nothing = key.algo.vector_in != 1 && key.algo.vector_wei != 1 && key.algo.vector_out != 1;
    int seed = 0;
    for (const route& r : routes) {
      P p = r.problem;
      p.direction(key.sig.dir).dtypes(key.sig.in, key.sig.wei, key.sig.out).compute(key.sig.compute).layout(key.sig.lay);
      if (p.ndim() != key.sig.ndim || conv_rejection(*k, p.normalized(), nullptr)) continue;
      const std::size_t workspace = k->workspace_bytes(p.normalized());
      if (r.stored && copies_nothing) EXPECT_EQ(workspace, 0u) << k->name() << " on " << p.describe();
      if (!r.stored) EXPECT_GT(workspace, 0u) << k->name() << " on " << p.describe();
      const auto c = run_and_check(dispatcher, p, k->name(), 700 + seed++);
      EXPECT_TRUE(c.passed) << k->name() << " on " << p.describe() << ": error " << c.error << " > " << c.tolerance;
      if (r.stored && copies_nothing) ++stored;
      if (!r.stored) ++copied;
    }
  }
  std::printf("sm_90 backward-data phases: %d runs on W as stored, %d on the flipped copy\n", stored, copied);
  EXPECT_GT(stored, 0);
  EXPECT_GT(copied, 0);
}

// The dispatcher's own choice on real layers: a GPU kernel, correct.
TEST(ConvBwdGpu, DispatcherRunsResNetLayersBackward) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  for (auto dir : {conv_direction::bwd_data, conv_direction::bwd_weight})
    for (auto d : {dtype::bf16, dtype::fp16}) {
      const grouped_conv_problem layers[] = {
          grouped_conv_problem{}.batch(4).channels(64, 64).input_size({56, 56}).filter_size({3}).padding({1}),
          grouped_conv_problem{}.batch(4).channels(256, 512).input_size({56, 56}).filter_size({1}).stride({2}),
          grouped_conv_problem{}.batch(4).channels(128, 128).input_size({57, 57}).filter_size({3}).stride({2})
              .padding({1}),
          grouped_conv_problem{}.batch(2).channels(64, 64).input_size({8, 28, 28}).filter_size({3}).padding({1}),
          // ResNet-50 layer1 at batch 8: backward-weight on the 64x256 tile split into ranges (a
          // persistent launch that once failed: dynamic_smem.cuh).
          grouped_conv_problem{}.batch(8).channels(64, 64).input_size({56, 56}).filter_size({3}).padding({1}),
      };
      for (auto p : layers) {
        p.direction(dir).dtype(d);
        auto r = run_and_check(dispatcher, p, "", 11);
        EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
        EXPECT_EQ(r.kernel.find("_host"), std::string::npos) << r.kernel;
      }
    }
}

}  // namespace
}  // namespace kdecl
