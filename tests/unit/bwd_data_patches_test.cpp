// Patchify backward-data as one GEMM and a scatter (kernels/conv/bwd_data_patches.hpp),
// checked with the double reference: dy times W as stored, row by row into
// [rows][G][taps][C/G], then each value to the dx element patch_scatter names; dx poisoned
// with NaN first, so every element must be written exactly where the reference puts it.
// The sm_90 backward-data kernel runs exactly this on the GPU (cuda/sm90/conv_bwd_data_sm90.cuh,
// cuda/scatter_patches.cuh).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kdecl/kernels/conv/bwd_data_patches.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/conv_reference.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

std::vector<P> patchify_problems() {
  return {
      P{}.batch(2).channels(3, 8).input_size({8, 12}).filter_size({4}).stride({4}),          // ConvNeXt's stem
      P{}.batch(1).channels(8, 6).groups(2).input_size({6, 4}).filter_size({2}).stride({2}),  // G = 2
      P{}.batch(3).channels(5, 7).input_size({9, 4}).filter_size({3, 2}).stride({3, 2}),      // non-square
      P{}.batch(2).channels(4, 5).input_size({12}).filter_size({3}).stride({3}),              // 1-D
      P{}.batch(1).channels(3, 4).input_size({4, 2, 6}).filter_size({2, 1, 3}).stride({2, 1, 3}),  // 3-D
      P{}.batch(2).channels(4, 6).groups(2).input_size({4, 6}).filter_size({2}).stride({2})
          .layout(conv_layout::gnhwc),  // group-major dx and dy
  };
}

TEST(BwdDataPatches, OneGemmAndAScatterComputeTheGradient) {
  int seed = 1;
  for (auto problem : patchify_problems()) {
    const P p = problem.direction(conv_direction::bwd_data).dtype(dtype::fp32).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    ASSERT_FALSE(kernels::bwd_data_as_patch_gemm_reason(p)) << p.describe() << ": "
                                                            << *kernels::bwd_data_as_patch_gemm_reason(p);
    std::vector<float> dy(std::size_t(p.span(conv_tensor::output))), w(std::size_t(p.span(conv_tensor::weight)));
    numeric::fill_uniform(dy.data(), dtype::fp32, dy.size(), std::uint64_t(seed++));
    numeric::fill_uniform(w.data(), dtype::fp32, w.size(), std::uint64_t(seed++));
    const auto expected = reference::grouped_conv(p, {nullptr, w.data(), dy.data()});

    // The GEMM: row m of group g is dY pixel m (evenly strided) times W's [K/G][taps x C/G] block.
    const std::int64_t rows = p.n * p.output_pixels(), taps = p.filter_dims[0] * p.filter_dims[1] * p.filter_dims[2];
    const std::int64_t width = taps * p.c_per_group();
    std::vector<double> gemm(std::size_t(rows * p.g * width));
    for (std::int64_t m = 0; m < rows; ++m)
      for (std::int64_t g = 0; g < p.g; ++g)
        for (std::int64_t j = 0; j < width; ++j) {
          double sum = 0;
          for (std::int64_t k = 0; k < p.k_per_group(); ++k)
            sum += double(dy[std::size_t(m * p.out_strides.spatial[2] + g * p.out_strides.g + k)]) *
                   double(w[std::size_t(g * p.wei_strides.g + k * p.wei_strides.n + j)]);
          gemm[std::size_t((m * p.g + g) * width + j)] = sum;
        }
    // The scatter.
    std::vector<float> dx(std::size_t(p.span(conv_tensor::input)), std::numeric_limits<float>::quiet_NaN());
    const kernels::patch_scatter map = kernels::patch_scatter_of(p);
    EXPECT_EQ(map.taps_per_patch(), taps);
    for (std::int64_t m = 0; m < rows; ++m)
      for (std::int64_t g = 0; g < p.g; ++g)
        for (int t = 0; t < int(taps); ++t)
          for (std::int64_t ch = 0; ch < p.c_per_group(); ++ch)
            dx[std::size_t(map.offset(int(m), int(g), t) + ch)] =
                float(gemm[std::size_t(((m * p.g + g) * taps + t) * p.c_per_group() + ch)]);

    const std::vector<double> got = reference::gather_result(p, dx.data());  // the reference's logical order
    ASSERT_EQ(got.size(), expected.size()) << p.describe();
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      ASSERT_FALSE(std::isnan(got[i])) << p.describe() << ": dx element " << i << " not written";
      worst = std::max(worst, std::abs(got[i] - expected[i]) / (1.0 + std::abs(expected[i])));
    }
    EXPECT_LT(worst, 1e-6) << p.describe();  // the GEMM's sums rounded to fp32 once
  }
}

TEST(BwdDataPatches, OtherLayersAreRefusedWithTheReason) {
  auto reason = [](P p) {
    return kernels::bwd_data_as_patch_gemm_reason(p.direction(conv_direction::bwd_data).normalized()).value_or("");
  };
  const P patch = P{}.batch(1).channels(3, 8).input_size({8, 8}).filter_size({4}).stride({4});
  EXPECT_EQ(reason(patch), "");
  EXPECT_EQ(reason(P{patch}.stride({2})), "the stride is not the filter's size");
  EXPECT_EQ(reason(P{patch}.padding({1})), "padded");
  EXPECT_EQ(reason(P{patch}.input_size({10, 8})), "the patches do not tile dx");  // two rows no patch covers
  EXPECT_EQ(reason(P{patch}.filter_size({1}).stride({1})), "a 1x1 filter of stride 1 (a plain GEMM)");
  EXPECT_EQ(kernels::bwd_data_as_patch_gemm_reason(P{patch}.normalized()).value_or(""), "not a backward-data problem");
}

}  // namespace
}  // namespace kdecl
