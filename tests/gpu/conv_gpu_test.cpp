// Every shipped convolution kernel for the GPU present, on random data against
// the double host reference (the result poisoned first): N = 1 and 3, stems
// (C = 4; C = 3 is refused with its reason), 7x7 stride 2, dilation 2,
// asymmetric padding, 1x1 stride 2, odd spatial sizes, G = 2 and 32, 1-D and
// 3-D, and a layer of several hundred tiles (persistent kernels' later tiles). Depthwise layers and 3-channel stems go to the direct kernel (checked below).
// Label `gpu`: skipped (reported as skipped) where no CUDA device exists.
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/runtime/conv_check.hpp"
#include "conv_odd_problems.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

using testing::cuda_device;

std::vector<std::shared_ptr<const conv_instance>> conv_kernels_for(arch_id arch) {
  std::vector<std::shared_ptr<const conv_instance>> out;
  for (const auto& k : registry::global().all())
    if (k.instance->op() == op_kind::grouped_conv && k.instance->arch() == arch)
      out.push_back(std::static_pointer_cast<const conv_instance>(k.instance));
  return out;
}

TEST(ConvGpuInstances, MatchTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  int checked = 0, refused = 0, kernels = 0;
  for (const auto& k : conv_kernels_for(dev->arch)) {
    ++kernels;
    int seed = 0, checked_here = 0;
    for (auto p : conv_test::odd_problems(k->key().sig.ndim)) {
      const auto& s = k->key().sig;
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay).fuse(s.fuse);
      if (conv_rejection(*k, p.normalized(), nullptr)) {
        ++refused;
        continue;
      }
      try {
        auto r = run_and_check(dispatcher, p, k->name(), 200 + seed++);
        EXPECT_TRUE(r.passed) << k->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
        ++checked;
        ++checked_here;
      } catch (const std::exception& e) {
        ADD_FAILURE() << k->name() << " on " << p.describe() << ": " << e.what();
      }
    }
    // The forward implicit GEMMs have no other GPU test: each must have run here
    // (ShippedConvInstances.EveryForwardImplicitGemmTakesAGpuTestProblem checks the same offline).
    if (conv_test::is_forward_implicit_gemm(*k)) EXPECT_GT(checked_here, 0) << k->name() << " ran no problem";
  }
  std::printf("%d convolution kernels for %s: %d runs checked, %d (kernel, problem) pairs refused at selection\n",
              kernels, std::string(to_string(dev->arch)).c_str(), checked, refused);
  EXPECT_GT(checked, 0);
}

// The dispatcher's own choice on real layers, bf16 and fp16.
TEST(ConvGpuInstances, DispatcherRunsResNetAndResNeXtLayers) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  for (auto d : {dtype::bf16, dtype::fp16}) {
    const grouped_conv_problem layers[] = {
        grouped_conv_problem{}.batch(8).channels(64, 64).input_size({56, 56}).filter_size({3}).padding({1}).dtype(d),
        grouped_conv_problem{}.batch(8).channels(256, 512).input_size({56, 56}).filter_size({1}).stride({2}).dtype(d),
        grouped_conv_problem{}.batch(8).channels(256, 256).groups(32).input_size({28, 28}).filter_size({3})
            .padding({1}).dtype(d),
        grouped_conv_problem{}.batch(8).channels(128, 128).groups(32).input_size({56, 56}).filter_size({3})
            .padding({1}).dtype(d),  // ResNeXt layer1: C/G = 4
        grouped_conv_problem{}.batch(2).channels(64, 64).input_size({8, 28, 28}).filter_size({3}).padding({1}).dtype(d),
    };
    for (const auto& p : layers) {
      auto r = run_and_check(dispatcher, p, "", 7);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
      EXPECT_EQ(r.kernel.find("_host"), std::string::npos) << r.kernel;
    }
  }
}

// The halo tiles' weights kept resident (one group, K/G within the tile's N, every weight stage
// in the ring: the producer loads them once per block) and streamed through the ring as for any
// other layer (KDECL_CONV_HALO_RESIDENT_WEIGHTS=0), on each sm_90 stride1 forward kernel: the
// same layers both ways, each against the host reference, 2-D and 3-D, a layer of many tiles
// per block (the resident weights reused), C/G = 64 and 128.
TEST(ConvGpuInstances, HaloTilesMatchWithWeightsResidentAndStreamed) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  if (dev->arch != arch_id::sm_90) GTEST_SKIP() << "the sm_90 kernels only";
  conv_dispatcher dispatcher(*dev);
  struct restore_default {
    ~restore_default() { unsetenv("KDECL_CONV_HALO_RESIDENT_WEIGHTS"); }
  } restore;
  const grouped_conv_problem problems[] = {
      grouped_conv_problem{}.batch(3).channels(64, 40).input_size({37, 53}).filter_size({3}).padding({1, 0}),
      grouped_conv_problem{}.batch(4).channels(64, 64).input_size({61, 67}).filter_size({3}).padding({1}),
      grouped_conv_problem{}.batch(1).channels(128, 56).input_size({45, 29}).filter_size({3}).padding({1}),
      grouped_conv_problem{}.batch(1).channels(64, 48).input_size({5, 19, 23}).filter_size({3}).padding({1}),
  };
  int checked = 0;
  for (const auto& k : conv_kernels_for(arch_id::sm_90)) {
    const auto& sig = k->key().sig;
    if (sig.dir != conv_direction::fwd || sig.spec != conv_specialization::stride1) continue;
    int seed = 0;
    for (auto p : problems) {
      if (p.ndim() != sig.ndim) continue;
      p.direction(sig.dir).dtypes(sig.in, sig.wei, sig.out).compute(sig.compute).layout(sig.lay).fuse(sig.fuse);
      if (conv_rejection(*k, p.normalized(), nullptr)) continue;
      for (const char* resident : {"1", "0"}) {
        setenv("KDECL_CONV_HALO_RESIDENT_WEIGHTS", resident, 1);
        auto r = run_and_check(dispatcher, p, k->name(), 500 + seed++);
        EXPECT_TRUE(r.passed) << k->name() << " resident=" << resident << " on " << p.describe() << ": error "
                              << r.error << " > " << r.tolerance;
        ++checked;
      }
    }
  }
  std::printf("halo tiles with weights resident and streamed: %d runs checked\n", checked);
  EXPECT_GT(checked, 0);
}

// Depthwise layers, which the implicit GEMM refuses (K/G is not a multiple of its
// vectors), go to the direct convolution (conv_direct_gpu_test.cpp checks its results);
// stems with 3 channels to a GPU kernel, direct or the implicit GEMM on channel-padded copies.
TEST(ConvGpuInstances, StemsWithThreeChannelsAndDepthwiseRunOnGpuKernels) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  auto stem = grouped_conv_problem{}.batch(1).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2})
                  .padding({3}).dtype(dtype::bf16);
  auto depthwise = grouped_conv_problem{}.batch(1).channels(96, 96).groups(96).input_size({56, 56}).filter_size({3})
                       .padding({1}).dtype(dtype::bf16);
  auto sel = dispatcher.select(depthwise);
  ASSERT_TRUE(sel) << depthwise.describe() << ": " << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.pipe, pipeline::direct_conv) << sel.explain();
  sel = dispatcher.select(stem);
  ASSERT_TRUE(sel) << stem.describe() << ": " << sel.explain();
  EXPECT_NE(sel.kernel->arch(), arch_id::host) << sel.explain();
  auto r = run_and_check(dispatcher, stem, "", 17);
  EXPECT_TRUE(r.passed) << r.kernel << " on " << stem.describe() << ": error " << r.error;
}

// Fused problems no registered kernel compiles in (a depthwise layer: the direct kernels store plain
// results; a fp16 stem with bias + gelu, not among the fused sets): the plain kernel and the CUDA
// epilogue pass, checked against the reference; the residual in place goes through the dispatcher.
TEST(ConvGpuInstances, ComposedEpiloguesMatchTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  const auto depthwise = grouped_conv_problem{}.batch(2).channels(96, 96).groups(96).input_size({23, 19})
                             .filter_size({3}).padding({1}).dtype(dtype::bf16).bias().residual()
                             .activation(elementwise::relu);
  const auto dense = grouped_conv_problem{}.batch(3).channels(32, 48).input_size({17, 13}).filter_size({3})
                         .stride({2}).padding({1}).dtype(dtype::fp16).bias().activation(elementwise::gelu);
  for (const auto& p : {depthwise, dense}) {
    const auto sel = dispatcher.select(p);
    ASSERT_TRUE(sel) << p.describe() << ": " << sel.explain();
    if (!sel.composed_epilogue) {  // a fused kernel of this problem is registered (the unverified sets)
      std::printf("%s: %s\n", p.describe().c_str(), sel.explain().c_str());
      continue;
    }
    const auto r = run_and_check(dispatcher, p, "", 29);
    EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
    EXPECT_NE(r.kernel.find("pass of its own"), std::string::npos) << r.kernel;
  }
}

}  // namespace
}  // namespace kdecl
