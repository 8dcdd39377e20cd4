// Backward-data of any stride as one forward convolution per stride phase
// (kernels/conv/bwd_data_phases.hpp), checked against the double reference: each
// phase's forward problem is evaluated by its definition on dy (from the phase's
// offset, with its strides) and its flipped taps (the host copy of what the GPU
// copy writes), stored through the phase's pixel map into a dx poisoned with NaN;
// the phases together must write every element of dx, each with the backward
// gradient. Odd problems: strides 2-4, filters smaller than the stride (phases no
// tap reaches), dilation beyond the stride, asymmetric padding, groups, 1-D and
// 3-D, padded strides, a group-major layout. The sm_90 backward-data kernel runs
// exactly these phases on the GPU (cuda/sm90/conv_bwd_data_sm90.cuh).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kdecl/kernels/conv/bwd_data_phases.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/conv_reference.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

std::vector<P> strided_problems() {
  return {
      P{}.batch(2).channels(8, 12).input_size({11, 9}).filter_size({3}).stride({2}).padding({1}),  // ResNet's 3x3 s2
      P{}.batch(2).channels(6, 10).input_size({9, 8}).filter_size({1}).stride({2}),  // 1x1 s2: three phases zero
      P{}.batch(1).channels(5, 7).input_size({13, 11}).filter_size({3}).stride({2}).dilation({3}),  // dilation > stride
      P{}.batch(1).channels(4, 6).input_size({14, 13}).filter_size({5, 4}).stride({3, 2}).padding({2, 1}, {0, 2}),
      P{}.batch(2).channels(4, 4).input_size({19}).filter_size({3}).stride({4}).padding({1}),  // filter < stride
      P{}.batch(1).channels(6, 9).groups(3).input_size({5, 6, 7}).filter_size({3}).stride({2, 1, 2}).padding({1}),
      P{}.batch(3).channels(8, 8).groups(8).input_size({10, 9}).filter_size({3}).stride({2}).padding({1}),  // depthwise
      P{}.batch(2).channels(4, 8).groups(2).input_size({9, 7}).filter_size({3}).stride({1, 2}).padding({1})
          .layout(conv_layout::gnhwc),  // group-major
      P{}.batch(1).channels(3, 5).input_size({4, 4}).filter_size({4}).stride({4}),  // patch embedding: one tap each
  };
}

std::vector<float> random_tensor(const P& p, conv_tensor t, std::uint64_t seed) {
  std::vector<float> v(std::size_t(p.span(t)));
  numeric::fill_uniform(v.data(), dtype::fp32, v.size(), seed);
  return v;
}

// The forward convolution of a phase by its definition, stored at dx + dx_offset through the pixel map.
void run_phase(const kernels::bwd_data_phase_problem& ph, const float* dy, const float* w_flipped, float* dx,
               std::int64_t dx_group_stride, std::int64_t groups, std::int64_t dx_channels) {
  if (ph.zero) {
    for (std::int64_t m = 0; m < ph.rows; ++m)
      for (std::int64_t g = 0; g < groups; ++g)
        for (std::int64_t c = 0; c < dx_channels; ++c) dx[ph.dx_offset + ph.pixels(int(m)) + g * dx_group_stride + c] = 0;
    return;
  }
  const P& f = ph.forward;
  const auto out = f.output_dims();
  const auto& si = f.in_strides;
  const auto& sw = f.wei_strides;
  const auto& so = f.out_strides;
  ASSERT_EQ(f.n * out[0] * out[1] * out[2], ph.rows);
  std::int64_t m = 0;
  for (std::int64_t n = 0; n < f.n; ++n)
    for (std::int64_t z = 0; z < out[0]; ++z)
      for (std::int64_t y = 0; y < out[1]; ++y)
        for (std::int64_t x = 0; x < out[2]; ++x, ++m) {
          const std::int64_t at = n * so.n + z * so.spatial[0] + y * so.spatial[1] + x * so.spatial[2];
          ASSERT_EQ(ph.pixels(int(m)), at) << "the pixel map and the output strides disagree";
          const std::int64_t o[3] = {z, y, x};
          for (std::int64_t g = 0; g < f.g; ++g)
            for (std::int64_t c = 0; c < f.k_per_group(); ++c) {
              double sum = 0;
              for (std::int64_t t = 0; t < f.filter_taps(); ++t) {
                const std::int64_t tap[3] = {t / (f.filter_dims[1] * f.filter_dims[2]),
                                             t / f.filter_dims[2] % f.filter_dims[1], t % f.filter_dims[2]};
                std::int64_t in_at = ph.dy_offset + n * si.n + g * si.g, w_at = g * sw.g + c * sw.n;
                bool inside = true;
                for (int d = 0; d < 3; ++d) {
                  const std::int64_t i = o[d] - f.pad_left_dims[d] + tap[d] * f.dilation_dims[d];
                  inside = inside && i >= 0 && i < f.input_dims[d];
                  in_at += i * si.spatial[std::size_t(d)];
                  w_at += tap[d] * sw.spatial[std::size_t(d)];
                }
                if (!inside) continue;
                for (std::int64_t k = 0; k < f.c_per_group(); ++k) sum += double(dy[in_at + k]) * w_flipped[w_at + k];
              }
              dx[ph.dx_offset + at + g * so.g + c] = float(sum);
            }
        }
}

TEST(BwdDataPhaseProblems, ThePhasesComputeTheGradientTogether) {
  int seed = 1;
  for (auto problem : strided_problems()) {
    const P p = problem.direction(conv_direction::bwd_data).dtype(dtype::fp32).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    auto dy = random_tensor(p, conv_tensor::output, seed++);
    auto w = random_tensor(p, conv_tensor::weight, seed++);
    const auto want = reference::grouped_conv(p, {nullptr, w.data(), dy.data()});

    std::vector<float> dx(std::size_t(p.span(conv_tensor::input)), std::numeric_limits<float>::quiet_NaN());
    const auto phases = kernels::bwd_data_phases(p);
    std::int64_t rows = 0;
    for (const auto& ph : phases) {
      rows += ph.rows;
      std::vector<float> flipped;
      if (!ph.zero) {
        const P& f = ph.forward;
        EXPECT_EQ(f, f.normalized()) << p.describe();
        EXPECT_EQ(f.dir, conv_direction::fwd);
        for (int d = 0; d < 3; ++d) {
          EXPECT_EQ(f.stride_dims[d], 1);
          EXPECT_GE(f.pad_left_dims[d], 0) << p.describe();
          EXPECT_GE(f.pad_right_dims[d], 0) << p.describe();
        }
        ASSERT_EQ(ph.weights.elements(), f.elements(conv_tensor::weight));
        flipped.assign(std::size_t(f.span(conv_tensor::weight)), std::numeric_limits<float>::quiet_NaN());
        kernels::flip_transpose_weights_host(ph.weights, w.data(), flipped.data(), 4);
      }
      run_phase(ph, dy.data(), flipped.data(), dx.data(), p.in_strides.g, p.g, p.c_per_group());
    }
    EXPECT_EQ(rows, p.n * p.input_pixels()) << "every dx pixel is in exactly one phase: " << p.describe();
    const auto got = reference::gather_result(p, dx.data());
    ASSERT_EQ(got.size(), want.size());
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_FALSE(std::isnan(got[i])) << p.describe() << ": dx element " << i << " was never written";
      worst = std::max(worst, std::abs(got[i] - want[i]) / (1.0 + std::abs(want[i])));
    }
    EXPECT_LT(worst, 1e-5) << p.describe();
  }
}

TEST(BwdDataPhaseProblems, StrideOneIsOnePhaseTheForwardEquivalent) {
  const P p = P{}.direction(conv_direction::bwd_data).batch(2).channels(6, 10).input_size({13, 10}).filter_size({3})
                  .dilation({2}).padding({2}, {1}).normalized();
  const auto phases = kernels::bwd_data_phases(p);
  ASSERT_EQ(phases.size(), 1u);
  EXPECT_FALSE(phases[0].zero);
  EXPECT_EQ(phases[0].forward, kernels::forward_equivalent_of_bwd_data(p));
  EXPECT_EQ(phases[0].dy_offset, 0);
  EXPECT_EQ(phases[0].dx_offset, 0);
}

TEST(BwdDataPhaseProblems, PhasesNoTapReachesAreZeroAndPhasesWithNoPixelsAreLeftOut) {
  // 1x1 stride 2: only the even positions in both dimensions meet a tap.
  const P p = P{}.direction(conv_direction::bwd_data).batch(1).channels(8, 8).input_size({6, 5}).filter_size({1})
                  .stride({2}).normalized();
  const auto phases = kernels::bwd_data_phases(p);
  ASSERT_EQ(phases.size(), 4u);
  EXPECT_FALSE(phases[0].zero);
  EXPECT_TRUE(phases[1].zero && phases[2].zero && phases[3].zero);
  EXPECT_EQ(phases[0].rows, 3 * 3);
  EXPECT_EQ(phases[3].rows, 3 * 2);
  // Stride 4 over 2 pixels: phases 2 and 3 hold no pixel.
  const P q = P{}.direction(conv_direction::bwd_data).batch(1).channels(8, 8).input_size({2}).filter_size({2})
                  .stride({4}).padding({1}).normalized();
  ASSERT_FALSE(q.validate()) << *q.validate();
  EXPECT_EQ(kernels::bwd_data_phases(q).size(), 2u);
}

}  // namespace
}  // namespace kdecl
