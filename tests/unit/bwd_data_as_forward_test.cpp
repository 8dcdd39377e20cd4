// Stride-1 backward-data as a forward convolution (kernels/conv/bwd_data_as_forward.hpp),
// checked with the double reference: the backward problem on random dy and weights
// against the forward equivalent on dy and the flipped, transposed weights, on odd
// problems (asymmetric padding, dilation, groups, non-square filters, 1-D and 3-D,
// padded strides, group-major layouts). The sm_90 backward-data kernel runs exactly
// this equivalence on the GPU (cuda/sm90/conv_bwd_data_sm90.cuh).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/reference/conv_reference.hpp"
#include "random_conv_tensor.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

std::vector<P> stride_one_problems() {
  return {
      P{}.batch(2).channels(8, 12).input_size({11, 9}).filter_size({3}).padding({1}),
      P{}.batch(3).channels(6, 10).input_size({13, 10}).filter_size({3}).dilation({2}).padding({2}),
      P{}.batch(1).channels(5, 7).input_size({9, 12}).filter_size({3, 5}).padding({0, 1}, {2, 3}),  // asymmetric
      P{}.batch(2).channels(12, 18).groups(3).input_size({7, 8}).filter_size({3}).padding({1}),
      P{}.batch(1).channels(16, 16).groups(16).input_size({10, 9}).filter_size({5}).padding({2}),  // depthwise
      P{}.batch(2).channels(9, 4).input_size({6, 7}).filter_size({1}),                             // 1x1
      P{}.batch(2).channels(4, 6).input_size({17}).filter_size({5}).dilation({3}).padding({4}, {7}),  // 1-D
      P{}.batch(1).channels(6, 9).groups(3).input_size({4, 5, 6}).filter_size({3, 1, 3}).padding({1, 0, 2}),  // 3-D
      P{}.batch(2).channels(4, 8).groups(2).input_size({6, 7}).filter_size({3}).padding({1})
          .layout(conv_layout::gnhwc),  // group-major
  };
}

TEST(BwdDataAsForward, TheForwardEquivalentComputesTheSameGradient) {
  int seed = 1;
  for (auto problem : stride_one_problems()) {
    const P p = problem.direction(conv_direction::bwd_data).dtype(dtype::fp32).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    ASSERT_FALSE(kernels::bwd_data_as_forward_reason(p)) << p.describe();
    const P f = kernels::forward_equivalent_of_bwd_data(p);
    ASSERT_FALSE(f.validate()) << p.describe() << " -> " << f.describe() << ": " << *f.validate();
    EXPECT_EQ(f, f.normalized());
    // dx has the backward problem's input size; dy is the forward input.
    const std::array<std::int64_t, 3> dx_size{p.input_dims[0], p.input_dims[1], p.input_dims[2]};
    EXPECT_EQ(f.output_dims(), dx_size);
    EXPECT_EQ(f.c, p.k);
    EXPECT_EQ(f.k, p.c);

    auto dy = testing::random_conv_tensor(p, conv_tensor::output, seed++);
    auto w = testing::random_conv_tensor(p, conv_tensor::weight, seed++);
    const auto backward = reference::grouped_conv(p, {nullptr, w.data(), dy.data()});

    const auto map = kernels::flipped_weights_map_of(p, f);
    ASSERT_EQ(map.elements(), f.elements(conv_tensor::weight));
    std::vector<unsigned char> flipped(std::size_t(f.span(conv_tensor::weight)) * 4, 0xFF);  // NaN where unwritten
    kernels::flip_transpose_weights_host(map, w.data(), flipped.data(), 4);
    const auto forward = reference::grouped_conv(f, {dy.data(), flipped.data(), nullptr});

    ASSERT_EQ(forward.size(), backward.size()) << p.describe();
    double worst = 0;
    for (std::size_t i = 0; i < forward.size(); ++i) {
      ASSERT_FALSE(std::isnan(forward[i])) << p.describe() << " element " << i;
      worst = std::max(worst, std::abs(forward[i] - backward[i]) / (1.0 + std::abs(backward[i])));
    }
    EXPECT_LT(worst, 1e-12) << p.describe();
  }
}

TEST(BwdDataAsForward, StridedLayersAreRefusedWithTheStride) {
  const P p = P{}.direction(conv_direction::bwd_data).batch(1).channels(8, 8).input_size({9, 9}).filter_size({3})
                  .stride({1, 2}).padding({1}).normalized();
  const auto why = kernels::bwd_data_as_forward_reason(p);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("stride 2 is not 1"), std::string::npos) << *why;
  EXPECT_TRUE(kernels::bwd_data_as_forward_reason(P{p}.direction(conv_direction::fwd)));
}

TEST(BwdDataAsForward, OneByOneLayersWithoutPaddingArePlainGemms) {
  auto layer = [](conv_dims filter, conv_dims pad) {
    return P{}.direction(conv_direction::bwd_data).batch(2).channels(64, 96).groups(2).input_size({7, 9})
        .filter_size(filter).padding(pad);
  };
  EXPECT_FALSE(kernels::bwd_data_as_gemm_reason(layer({1}, {0}).normalized()));
  EXPECT_TRUE(kernels::bwd_data_as_gemm_reason(layer({3}, {1}).normalized()));
  EXPECT_TRUE(kernels::bwd_data_as_gemm_reason(layer({1}, {1}).normalized()));           // padded
  EXPECT_TRUE(kernels::bwd_data_as_gemm_reason(layer({1}, {0}).stride({2}).normalized()));  // strided
  // dx's image rows padded: its pixels have no single leading dimension.
  auto padded_rows = layer({1}, {0}).normalized();
  padded_rows.in_strides.spatial[1] += 64;
  padded_rows.in_strides.n = padded_rows.in_strides.spatial[1] * 7;
  const auto why = kernels::bwd_data_as_gemm_reason(padded_rows);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("evenly strided"), std::string::npos) << *why;
}

}  // namespace
}  // namespace kdecl
