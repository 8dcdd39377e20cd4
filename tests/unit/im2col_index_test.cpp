// The index arithmetic of the CUDA forward convolution's im2col gather
// (kernels/conv/im2col_index.hpp), on the host, against the
// convolution's definition walked in the implicit GEMM's row and depth order.
#include <gtest/gtest.h>

#include "kdecl/kernels/conv/im2col_index.hpp"

namespace kdecl {
namespace {

using kernels::gather_geometry_of;
using kernels::im2col_offset;
using kernels::im2col_row_of;

void check_gather(grouped_conv_problem problem) {
  const grouped_conv_problem p = problem.normalized();
  ASSERT_FALSE(p.validate()) << p.validate().value_or("");
  const auto geo = gather_geometry_of(p);
  const auto out = p.output_dims();
  const auto& si = p.in_strides;
  ASSERT_EQ(geo.m, p.n * p.output_pixels());
  ASSERT_EQ(geo.k, p.c_per_group() * p.filter_taps());
  std::int64_t m = 0, checked = 0, padding = 0;
  for (std::int64_t n = 0; n < p.n; ++n)
    for (std::int64_t o0 = 0; o0 < out[0]; ++o0)
      for (std::int64_t o1 = 0; o1 < out[1]; ++o1)
        for (std::int64_t o2 = 0; o2 < out[2]; ++o2, ++m) {
          const auto row = im2col_row_of(geo, int(m));
          std::int64_t kk = 0;
          for (std::int64_t z = 0; z < p.filter_dims[0]; ++z)
            for (std::int64_t y = 0; y < p.filter_dims[1]; ++y)
              for (std::int64_t x = 0; x < p.filter_dims[2]; ++x)
                for (std::int64_t c = 0; c < p.c_per_group(); ++c, ++kk) {
                  const std::int64_t i[3] = {o0 * p.stride_dims[0] - p.pad_left_dims[0] + z * p.dilation_dims[0],
                                             o1 * p.stride_dims[1] - p.pad_left_dims[1] + y * p.dilation_dims[1],
                                             o2 * p.stride_dims[2] - p.pad_left_dims[2] + x * p.dilation_dims[2]};
                  bool inside = true;
                  for (int d = 0; d < 3; ++d) inside = inside && i[d] >= 0 && i[d] < p.input_dims[d];
                  std::int64_t at = -1;
                  ASSERT_EQ(im2col_offset(geo, row, int(kk), at), inside) << "m " << m << " kk " << kk;
                  if (inside)
                    ASSERT_EQ(at, n * si.n + i[0] * si.spatial[0] + i[1] * si.spatial[1] + i[2] * si.spatial[2] + c)
                        << "m " << m << " kk " << kk;
                  padding += !inside;
                  ++checked;
                }
        }
  EXPECT_EQ(checked, std::int64_t(geo.m) * geo.k);
  EXPECT_GT(checked, padding);
}

TEST(Im2colIndex, MatchesTheDefinition) {
  using P = grouped_conv_problem;
  check_gather(P{}.batch(2).channels(4, 8).input_size({9, 11}).filter_size({7}).stride({2}).padding({3}));
  check_gather(P{}.batch(3).channels(8, 8).input_size({7, 6}).filter_size({3}).dilation({2}).padding({0, 1}, {2, 0}));
  check_gather(P{}.batch(1).channels(16, 8).groups(2).input_size({5, 6, 7}).filter_size({3, 1, 3}).stride({1, 2, 2})
                   .padding({1, 0, 1}));
  check_gather(P{}.batch(2).channels(6, 6).input_size({23}).filter_size({5}).stride({3}).dilation({2}).padding({4}));
  // Padded input rows and images, group-major.
  conv_tensor_strides s;
  s.spatial[1] = 9 * 4 + 4;
  s.n = 7 * 40 + 8;
  check_gather(P{}.batch(2).channels(8, 8).groups(2).input_size({7, 9}).filter_size({3}).padding({1})
                   .layout(conv_layout::gnhwc).input_strides(s));
}

}  // namespace
}  // namespace kdecl
