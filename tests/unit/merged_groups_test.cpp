// Merged groups (kernels/conv/merged_groups.hpp): a grouped convolution equals the
// convolution of its merged view (G / m groups of m x C/G and m x K/G channels) with
// block-diagonal weights. Checked with the double reference on odd problems (C/G not
// a multiple of 8, K/G != C/G, strides, dilation, asymmetric padding, 1-D and 3-D),
// and the problems a merge refuses, with their reasons. The sm_90 forward kernel builds
// the block-diagonal weights in shared memory (cuda/sm90/conv_fwd_sm90.cuh); its GPU
// test (ConvGpuInstances) checks it against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kdecl/kernels/conv/merged_groups.hpp"
#include "kdecl/reference/conv_reference.hpp"
#include "random_conv_tensor.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

// The merged view's weights as a packed tensor: row n of merged group b is group
// b*m + n/(K/G)'s filter of output channel n%(K/G) on its own C/G channels, zeros elsewhere.
std::vector<float> block_diagonal_weights(const P& p, const P& packed_view, int m, const float* w) {
  const std::int64_t cg = p.c_per_group(), kg = p.k_per_group(), taps = p.filter_taps();
  std::vector<float> out(std::size_t(packed_view.span(conv_tensor::weight)), 0.0f);
  for (std::int64_t b = 0; b < p.g / m; ++b)
    for (std::int64_t n = 0; n < m * kg; ++n) {
      const std::int64_t g = b * m + n / kg, k = n % kg;
      for (std::int64_t t = 0; t < taps; ++t)
        for (std::int64_t c = 0; c < cg; ++c)
          out[std::size_t(((b * m * kg + n) * taps + t) * m * cg + (n / kg) * cg + c)] =
              w[std::size_t((g * kg + k) * taps * cg + t * cg + c)];
    }
  return out;
}

TEST(MergedGroups, TheViewWithBlockDiagonalWeightsComputesTheSameOutput) {
  struct merge_case {
    P problem;
    int merge;
  };
  const merge_case cases[] = {
      {P{}.batch(2).channels(16, 16).groups(4).input_size({9, 11}).filter_size({3}).padding({1}), 4},  // C/G = 4
      {P{}.batch(1).channels(24, 40).groups(2).input_size({10, 7}).filter_size({5}).stride({2})
           .padding({2, 1}, {1, 2}), 2},                                                                 // 12 / 20
      {P{}.batch(3).channels(32, 32).groups(8).input_size({8, 9}).filter_size({3}).dilation({2}).padding({2}), 4},
      {P{}.batch(2).channels(12, 6).groups(3).input_size({17}).filter_size({3}).padding({1}), 3},       // 1-D
      {P{}.batch(1).channels(16, 16).groups(4).input_size({4, 5, 6}).filter_size({3}).padding({1}), 2}, // 3-D
  };
  int seed = 1;
  for (const auto& c : cases) {
    const int m = c.merge;
    const P p = P(c.problem).dtype(dtype::fp32).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    ASSERT_FALSE(kernels::merged_groups_reason(p, m)) << p.describe();
    const P view = kernels::merged_groups_view(p, m);
    EXPECT_EQ(view.g, p.g / m);
    EXPECT_EQ(view.c_per_group(), m * p.c_per_group());
    EXPECT_EQ(view.k_per_group(), m * p.k_per_group());
    EXPECT_EQ(view.in_strides.g, m * p.in_strides.g);
    EXPECT_EQ(view.out_strides.g, m * p.out_strides.g);
    EXPECT_EQ(view.wei_strides, p.wei_strides);  // the real groups' filters
    // The view's A and C are the real tensors: the same pixel and image strides.
    EXPECT_EQ(view.in_strides.n, p.in_strides.n);
    EXPECT_EQ(view.out_strides.spatial, p.out_strides.spatial);

    P packed_view = view;
    packed_view.wei_strides = {};
    packed_view = packed_view.normalized();
    ASSERT_FALSE(packed_view.validate()) << *packed_view.validate();

    auto x = testing::random_conv_tensor(p, conv_tensor::input, seed++);
    auto w = testing::random_conv_tensor(p, conv_tensor::weight, seed++);
    const auto grouped = reference::grouped_conv(p, {x.data(), w.data(), nullptr});
    auto bd = block_diagonal_weights(p, packed_view, m, reinterpret_cast<const float*>(w.data()));
    const auto merged = reference::grouped_conv(packed_view, {x.data(), bd.data(), nullptr});
    ASSERT_EQ(merged.size(), grouped.size()) << p.describe();
    for (std::size_t i = 0; i < merged.size(); ++i)
      ASSERT_NEAR(merged[i], grouped[i], 1e-12 * (1.0 + std::abs(grouped[i]))) << p.describe() << " element " << i;
  }
}

TEST(MergedGroups, RefusalsNameTheRule) {
  const P odd_groups = P{}.batch(1).channels(120, 120).groups(30).input_size({8, 8}).filter_size({3}).normalized();
  const auto why = kernels::merged_groups_reason(odd_groups, 4);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("G = 30 is not a multiple of the kernel's groups_to_merge 4"), std::string::npos) << *why;

  const P group_major = P{}.batch(1).channels(32, 32).groups(8).input_size({8, 8}).filter_size({3})
                            .layout(conv_layout::gnhwc).normalized();
  const auto why_major = kernels::merged_groups_reason(group_major, 2);
  ASSERT_TRUE(why_major);
  EXPECT_NE(why_major->find("group strides must be C/G and K/G"), std::string::npos) << *why_major;

  EXPECT_FALSE(kernels::merged_groups_reason(group_major, 1));  // nothing merged, nothing to refuse
}

}  // namespace
}  // namespace kdecl
