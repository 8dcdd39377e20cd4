// The direct convolution (pipeline direct_conv) on the GPU present: every
// registered instance against the double host reference (result poisoned
// first, NaN never passes) on odd problems: depthwise with odd C, odd spatial
// sizes, stride 2, dilation 2, asymmetric padding, 3x3 / 5x5 / 7x7 and
// run-time filter sizes, channel multipliers, 3-channel stems, and grouped
// layers with 2 to 16 channels per group; N = 1 and 3; 1-D layers for the 1-D kernels. Then the dispatcher's
// choice on real layers: depthwise and stems go to direct_conv, forward and
// (depthwise) backward data and backward weight; the backward weight's result is
// the same bits run after run (its row ranges add in a fixed order).
// Label `gpu`: skipped (reported as skipped) where no CUDA device exists.
#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/conv_check.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

using testing::cuda_device;

std::vector<std::shared_ptr<const conv_instance>> direct_kernels_for(arch_id arch) {
  std::vector<std::shared_ptr<const conv_instance>> out;
  for (const auto& k : registry::global().all())
    if (k.instance->op() == op_kind::grouped_conv && k.instance->arch() == arch) {
      auto c = std::static_pointer_cast<const conv_instance>(k.instance);
      if (c->key().algo.pipe == pipeline::direct_conv) out.push_back(c);
    }
  return out;
}

using P = grouped_conv_problem;

std::vector<P> odd_problems(int ndim) {
  if (ndim == 1)
    return {
        P{}.batch(3).channels(24, 24).groups(24).input_size({101}).filter_size({5}).stride({2}).dilation({3})
            .padding({4}),
        P{}.batch(1).channels(13, 13).groups(13).input_size({77}).filter_size({3}).padding({0}, {2}),   // odd C
        P{}.batch(2).channels(3, 16).input_size({65}).filter_size({7}).stride({2}).padding({3}),         // stem
        P{}.batch(1).channels(16, 32).groups(4).input_size({40}).filter_size({3}).padding({1}),          // 4 -> 8
        P{}.batch(1).channels(136, 136).groups(136).input_size({129}).filter_size({9}).padding({4}),     // run-time filter
    };
  return {
      // depthwise
      P{}.batch(3).channels(13, 13).groups(13).input_size({17, 19}).filter_size({3}).padding({1}),        // odd C
      P{}.batch(1).channels(24, 24).groups(24).input_size({23, 21}).filter_size({3}).stride({2}).padding({1}),
      P{}.batch(2).channels(32, 32).groups(32).input_size({19, 20}).filter_size({3}).dilation({2}).padding({2}),
      P{}.batch(1).channels(40, 40).groups(40).input_size({15, 17}).filter_size({5}).stride({2})
          .padding({1, 2}, {2, 0}),                                                                       // asymmetric
      P{}.batch(3).channels(72, 72).groups(72).input_size({9, 11}).filter_size({7}).padding({3}),          // 7x7
      P{}.batch(1).channels(136, 136).groups(136).input_size({10, 9}).filter_size({5}).padding({2}),       // C > tile
      P{}.batch(2).channels(16, 16).groups(16).input_size({12, 13}).filter_size({3, 5}).stride({1, 2})
          .dilation({2, 1}).padding({2, 1}),                                                              // run-time filter
      P{}.batch(1).channels(8, 8).groups(8).input_size({5, 6}).filter_size({1}),                           // 1x1
      // the staged kernel's (C a multiple of 8; several tiles per image and channel blocks)
      P{}.batch(2).channels(48, 48).groups(48).input_size({37, 45}).filter_size({3}).padding({1}),
      P{}.batch(1).channels(96, 96).groups(96).input_size({30, 29}).filter_size({7}).stride({2}).padding({3}),
      P{}.batch(2).channels(200, 200).groups(200).input_size({13, 27}).filter_size({5}).padding({2}),
      P{}.batch(1).channels(64, 64).groups(64).input_size({33, 35}).filter_size({3}).stride({2})
          .padding({0}, {1}),                                                                             // asymmetric
      P{}.batch(3).channels(16, 16).groups(16).input_size({5, 70}).filter_size({7}).padding({3, 0}, {3, 6}),
      // channel multiplier 2 (K/G = 2, C/G = 1)
      P{}.batch(1).channels(16, 32).groups(16).input_size({11, 9}).filter_size({3}).stride({2}).padding({1}),
      // stems
      P{}.batch(1).channels(3, 64).input_size({37, 41}).filter_size({7}).stride({2}).padding({3}),
      P{}.batch(3).channels(3, 24).input_size({21, 18}).filter_size({3}).stride({2}).padding({0, 1}, {1, 0}),
      // few channels per group
      P{}.batch(2).channels(64, 64).groups(16).input_size({13, 11}).filter_size({3}).padding({1}),          // 4 per group
      P{}.batch(1).channels(64, 128).groups(4).input_size({9, 10}).filter_size({3}).stride({2}).padding({1}),  // 16 -> 32
      P{}.batch(3).channels(18, 12).groups(6).input_size({8, 7}).filter_size({3}).dilation({2}).padding({2}),   // 3 -> 2
      P{}.batch(1).channels(32, 32).groups(2).input_size({7, 9}).filter_size({3}).padding({1}),             // 16 per group
      P{}.batch(2).channels(48, 48).groups(6).input_size({11, 13}).filter_size({3}).stride({2}).padding({1}),  // 8 per group
      P{}.batch(1).channels(64, 64).groups(2).input_size({9, 7}).filter_size({3}).dilation({2}).padding({2, 1}, {1, 2}),  // 32
      P{}.batch(1).channels(24, 24).groups(6).input_size({10, 9}).filter_size({1, 3}).padding({0, 1}),     // 4, 1x3
  };
}

TEST(ConvDirectGpu, EveryInstanceMatchesTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  const auto kernels = direct_kernels_for(dev->arch);
  ASSERT_FALSE(kernels.empty()) << "no direct_conv kernel registered for " << to_string(dev->arch);
  int total = 0;
  for (const auto& k : kernels) {
    int checked = 0, seed = 0;
    for (auto p : odd_problems(k->key().sig.ndim)) {
      const auto& s = k->key().sig;
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay);
      if (auto why = conv_rejection(*k, p.normalized(), nullptr)) {
        // Refusals are for the channel vector, or a backward kernel given a layer that is not
        // depthwise (every problem here fits shared memory).
        // The staged kernel (stages 2) refuses what it is not built for, naming itself.
        const bool expected = why->find("vector") != std::string::npos ||
                              (s.dir != conv_direction::fwd && why->find("depthwise") != std::string::npos) ||
                              (k->key().algo.stages == 2 && why->find("staged depthwise kernel") != std::string::npos);
        EXPECT_TRUE(expected) << k->name() << " on " << p.describe() << ": " << *why;
        continue;
      }
      try {
        auto r = run_and_check(dispatcher, p, k->name(), 500 + seed++);
        EXPECT_TRUE(r.passed) << k->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
        ++checked;
      } catch (const std::exception& e) {
        ADD_FAILURE() << k->name() << " on " << p.describe() << ": " << e.what();
      }
    }
    std::printf("%s: %d problems checked\n", k->name().c_str(), checked);
    EXPECT_GT(checked, 0) << k->name();
    if (k->key().algo.stages == 2) EXPECT_GE(checked, 8) << k->name();  // every filter and stride it is built for
    total += checked;
  }
  std::printf("%zu direct_conv kernels for %s: %d runs checked\n", kernels.size(),
              std::string(to_string(dev->arch)).c_str(), total);
}

// The dispatcher's own choice: depthwise layers go to direct_conv, stems to direct_conv
// or (sm_90) the implicit GEMM on channel-padded copies, and every forward 2-D layer of
// the list has a GPU kernel.
TEST(ConvDirectGpu, DispatcherPicksDirectForDepthwiseAndAGpuKernelForStems) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  for (auto d : {dtype::bf16, dtype::fp16}) {
    const P layers[] = {
        P{}.batch(8).channels(144, 144).groups(144).input_size({56, 56}).filter_size({3}).padding({1}).dtype(d),
        P{}.batch(4).channels(96, 96).groups(96).input_size({112, 112}).filter_size({3}).stride({2}).padding({0, 0}, {1, 1})
            .dtype(d),
        P{}.batch(2).channels(240, 240).groups(240).input_size({28, 28}).filter_size({5}).padding({2}).dtype(d),
        P{}.batch(2).channels(384, 384).groups(384).input_size({14, 14}).filter_size({7}).padding({3}).dtype(d),
        P{}.batch(2).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2}).padding({3}).dtype(d),
    };
    for (const auto& p : layers) {
      auto r = run_and_check(dispatcher, p, "", 11);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
      // The stem (C = 3) may also go to the implicit GEMM on channel-padded copies (sm_90, input vector 1).
      const bool stem = p.c == 3 && r.kernel.find("_tma_wgmma_") != std::string::npos &&
                        parse_conv_name(r.kernel).algo.vector_in == 1;
      EXPECT_TRUE(stem || r.kernel.find("direct_conv") != std::string::npos)
          << r.kernel << " chosen for " << p.describe();
    }
  }
}

// Depthwise backward data: the dispatcher's choice is a direct_conv kernel (stride 2 included).
TEST(ConvDirectGpu, DispatcherPicksDirectForDepthwiseBackwardData) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  for (auto d : {dtype::bf16, dtype::fp16}) {
    const P layers[] = {
        P{}.batch(4).channels(144, 144).groups(144).input_size({56, 56}).filter_size({3}).padding({1}).dtype(d),
        P{}.batch(4).channels(96, 96).groups(96).input_size({112, 112}).filter_size({3}).stride({2})
            .padding({0, 0}, {1, 1}).dtype(d),
        P{}.batch(2).channels(240, 240).groups(240).input_size({28, 28}).filter_size({5}).stride({2}).padding({2})
            .dtype(d),
        P{}.batch(1).channels(21, 21).groups(21).input_size({15, 17}).filter_size({7}).stride({3}).dilation({2})
            .padding({4, 5}, {6, 3}).dtype(d),
    };
    for (auto p : layers) {
      p.direction(conv_direction::bwd_data);
      auto r = run_and_check(dispatcher, p, "", 13);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
      EXPECT_NE(r.kernel.find("direct_conv"), std::string::npos) << r.kernel << " chosen for " << p.describe();
    }
  }
}

// Dense backward-data of few input channels (stems): every direct_conv backward-data kernel runs it
// on the narrow-channel path (kernels/conv/narrow_bwd_data_plan.hpp) and matches the host
// reference: C = 1, 3 and 8, strides 1 to 3, a dimension with taps fewer than the stride (pixels no tap reaches),
// dilation, asymmetric padding, K not a multiple of 8 or of the 32-channel chunk, several tiles
// per phase, N = 1 and 3, 1-D. Keys of 16-byte vectors refuse K not a multiple of 8, naming
// the vector; the dispatcher's choice on stems is a direct_conv kernel.
TEST(ConvDirectGpu, NarrowChannelBackwardDataMatchesTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  const std::vector<P> problems2 = {
      P{}.batch(3).channels(3, 64).input_size({67, 75}).filter_size({7}).stride({2}).padding({3}),
      P{}.batch(1).channels(1, 32).input_size({45, 131}).filter_size({3}).padding({0}),
      P{}.batch(1).channels(3, 40).input_size({33, 29}).filter_size({3}).stride({2}).padding({0, 1}, {1, 0}),
      P{}.batch(2).channels(8, 24).input_size({21, 40}).filter_size({5, 3}).dilation({2, 1}).padding({4, 1}),
      P{}.batch(1).channels(2, 16).input_size({16, 25}).filter_size({2, 5}).stride({3, 2}).padding({0}),
      P{}.batch(1).channels(4, 100).input_size({19, 23}).filter_size({4, 3}).stride({3, 2}).dilation({1, 2})
          .padding({2, 1}, {1, 2}),
  };
  const std::vector<P> problems1 = {
      P{}.batch(3).channels(3, 16).input_size({301}).filter_size({7}).stride({2}).padding({3}),
      P{}.batch(1).channels(5, 72).input_size({97}).filter_size({5}).dilation({3}).padding({6}),
  };
  int total = 0;
  for (const auto& k : direct_kernels_for(dev->arch)) {
    const auto& s = k->key().sig;
    if (s.dir != conv_direction::bwd_data) continue;
    int checked = 0, seed = 700;
    for (auto p : s.ndim == 1 ? problems1 : problems2) {
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay);
      if (auto why = conv_rejection(*k, p.normalized(), nullptr)) {
        EXPECT_TRUE(k->key().algo.vector_out == 8 && p.k % 8 != 0 && why->find("vector") != std::string::npos)
            << k->name() << " on " << p.describe() << ": " << *why;
        continue;
      }
      auto r = run_and_check(dispatcher, p, k->name(), seed++);
      EXPECT_TRUE(r.passed) << k->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
      ++checked;
    }
    std::printf("%s: %d narrow-channel problems checked\n", k->name().c_str(), checked);
    EXPECT_GE(checked, 2) << k->name();
    total += checked;
  }
  EXPECT_GT(total, 0);
  for (auto d : {dtype::bf16, dtype::fp16}) {
    const P stems[] = {
        P{}.batch(2).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2}).padding({3}).dtype(d),
        P{}.batch(2).channels(3, 32).input_size({224, 224}).filter_size({3}).stride({2}).padding({1}).dtype(d),
        P{}.batch(1).channels(1, 64).input_size({188, 188}).filter_size({3}).dtype(d),
    };
    // A patchify stem (no overlap between taps: one plain GEMM) stays with the implicit GEMM.
    auto patchify = P{}.batch(2).channels(3, 96).input_size({224, 224}).filter_size({4}).stride({4}).dtype(d);
    patchify.direction(conv_direction::bwd_data);
    const auto rp = run_and_check(dispatcher, patchify, "", 23);
    EXPECT_TRUE(rp.passed) << rp.kernel << " on " << patchify.describe() << ": error " << rp.error;
    EXPECT_EQ(rp.kernel.find("direct_conv"), std::string::npos) << rp.kernel;
    for (auto p : stems) {
      p.direction(conv_direction::bwd_data);
      auto r = run_and_check(dispatcher, p, "", 19);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error;
      EXPECT_NE(r.kernel.find("direct_conv"), std::string::npos) << r.kernel << " chosen for " << p.describe();
    }
  }
}

// 3-D stems (no direct_conv keys in 3-D): the sm_90 TMA + wgmma backward-data kernels of 16-bit
// data run them on the narrow-channel kernel (narrow_bwd_data_plan::runs_on_path) and match the
// host reference: R3D-18's 3x7x7 stride 1x2x2 stem at odd sizes, strides and dilation in depth,
// overlap in depth only, K not a multiple of 8 (element-wise dy staging), C = 1 to 8, N = 1 and 2.
// The dispatcher's rules of a key still hold (its channel vector, the stride1 specialization), so
// keys of 8-element vectors take only C = 8; every problem runs on some kernel of each dtype. The
// dispatcher's choice on the stem is on the path and its explanation says so.
TEST(ConvDirectGpu, NarrowChannelBackwardDataOfThreeDimensionalStemsMatchesTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  if (dev->arch != arch_id::sm_90) GTEST_SKIP() << "the 3-D path runs on the sm_90 implicit GEMM keys";
  conv_dispatcher dispatcher(*dev);
  const std::vector<P> problems = {
      P{}.batch(2).channels(3, 64).input_size({5, 37, 45}).filter_size({3, 7, 7}).stride({1, 2, 2}).padding({1, 3, 3}),
      P{}.batch(1).channels(2, 24).input_size({7, 9, 11}).filter_size({3}).stride({2}).padding({1, 0, 1}),
      P{}.batch(1).channels(8, 40).input_size({9, 6, 13}).filter_size({2, 3, 1}).dilation({3, 1, 1})
          .padding({2, 1, 0}, {1, 1, 0}),
      P{}.batch(2).channels(1, 20).input_size({6, 17, 19}).filter_size({3, 1, 1}).padding({1, 0, 0}),
      P{}.batch(1).channels(5, 37).input_size({4, 21, 18}).filter_size({3}).stride({1, 2, 3}).padding({1}),
  };
  std::map<std::pair<dtype, std::size_t>, int> runs;  // (dtype, problem): kernels that ran it
  for (const auto& k : registry::global().all()) {
    if (k.instance->op() != op_kind::grouped_conv || k.instance->arch() != dev->arch) continue;
    const auto c = std::static_pointer_cast<const conv_instance>(k.instance);
    const auto& s = c->key().sig;
    if (s.dir != conv_direction::bwd_data || s.ndim != 3) continue;
    int checked = 0, seed = 900;
    for (std::size_t i = 0; i < problems.size(); ++i) {
      P p = problems[i];
      p.direction(s.dir).dtypes(s.in, s.wei, s.out).compute(s.compute).layout(s.lay);
      if (!kernels::narrow_bwd_data_plan::runs_on_path(c->key(), p.normalized())) break;
      if (auto why = conv_rejection(*c, p.normalized(), nullptr)) {
        EXPECT_TRUE(why->find("vector") != std::string::npos || why->find("stride1") != std::string::npos)
            << c->name() << " refuses " << p.describe() << ": " << *why;
        continue;
      }
      auto r = run_and_check(dispatcher, p, c->name(), seed++);
      EXPECT_TRUE(r.passed) << c->name() << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
      ++runs[{s.in, i}];
      ++checked;
    }
    if (checked) std::printf("%s: %d 3-D narrow-channel problems checked\n", c->name().c_str(), checked);
  }
  for (auto d : {dtype::bf16, dtype::fp16})
    for (std::size_t i = 0; i < problems.size(); ++i)
      EXPECT_GT(runs[std::make_pair(d, i)], 0) << "no sm_90 3-D backward-data kernel of " << to_string(d) << " ran "
                                 << problems[i].describe();
  for (auto d : {dtype::bf16, dtype::fp16}) {
    auto stem = P{}.batch(2).channels(3, 64).input_size({8, 112, 112}).filter_size({3, 7, 7}).stride({1, 2, 2})
                    .padding({1, 3, 3}).dtype(d);
    stem.direction(conv_direction::bwd_data);
    auto r = run_and_check(dispatcher, stem, "", 29);
    EXPECT_TRUE(r.passed) << r.kernel << " on " << stem.describe() << ": error " << r.error;
    const auto sel = dispatcher.select(stem.normalized());
    ASSERT_TRUE(sel);
    EXPECT_TRUE(kernels::narrow_bwd_data_plan::runs_on_path(sel.kernel->key(), stem.normalized())) << sel.kernel->name();
    EXPECT_NE(sel.explain().find("narrow-channel path"), std::string::npos) << sel.explain();
  }
}

// Depthwise backward weight: the dispatcher's choice is a direct_conv kernel (strides 2 and 3,
// dilation 2, asymmetric padding, odd C), it matches the host reference, and two runs on the same
// data (the dispatcher lending the split workspace) give the same bits.
TEST(ConvDirectGpu, DepthwiseBackwardWeightIsDirectAndDeterministic) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  conv_dispatcher dispatcher(*dev);
  for (auto d : {dtype::bf16, dtype::fp16}) {
    const P layers[] = {
        P{}.batch(8).channels(144, 144).groups(144).input_size({56, 56}).filter_size({3}).padding({1}).dtype(d),
        P{}.batch(4).channels(96, 96).groups(96).input_size({112, 112}).filter_size({3}).stride({2})
            .padding({0, 0}, {1, 1}).dtype(d),
        P{}.batch(2).channels(240, 240).groups(240).input_size({28, 28}).filter_size({5}).stride({2}).padding({2})
            .dtype(d),
        P{}.batch(3).channels(32, 32).groups(32).input_size({14, 14}).filter_size({7}).padding({3}).dtype(d),
        P{}.batch(1).channels(21, 21).groups(21).input_size({15, 17}).filter_size({7}).stride({3}).dilation({2})
            .padding({4, 5}, {6, 3}).dtype(d),
    };
    for (auto p : layers) {
      p.direction(conv_direction::bwd_weight);
      auto r = run_and_check(dispatcher, p, "", 17);
      EXPECT_TRUE(r.passed) << r.kernel << " on " << p.describe() << ": error " << r.error << " > " << r.tolerance;
      EXPECT_NE(r.kernel.find("direct_conv"), std::string::npos) << r.kernel << " chosen for " << p.describe();

      const grouped_conv_problem q = p.normalized();
      buffer x(*dev, std::size_t(q.span(conv_tensor::input)) * 2), dy(*dev, std::size_t(q.span(conv_tensor::output)) * 2);
      buffer dw(*dev, std::size_t(q.span(conv_tensor::weight)) * 2);
      std::vector<unsigned char> hx(x.size()), hdy(dy.size());
      numeric::fill_uniform(hx.data(), d, hx.size() / 2, 5);
      numeric::fill_uniform(hdy.data(), d, hdy.size() / 2, 6);
      x.upload(hx.data(), hx.size());
      dy.upload(hdy.data(), hdy.size());
      const grouped_conv_args args{x.data(), dw.data(), dy.data()};
      std::vector<unsigned char> first, again;
      for (auto* result : {&first, &again}) {
        dw.fill_bytes(0xFF);
        auto st = dispatcher.run(q, args);
        ASSERT_TRUE(st) << st.message();
        ASSERT_TRUE(synchronize(*dev));
        result->resize(dw.size());
        dw.download(result->data(), result->size());
      }
      EXPECT_EQ(first, again) << "two runs of " << r.kernel << " on " << q.describe() << " differ";
    }
  }
}

}  // namespace
}  // namespace kdecl
