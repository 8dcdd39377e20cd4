// Halo tiles (kernels/conv/halo_tiles.hpp), the geometry of the stride1 specialization's
// sm_90 forward kernel: emulated on the host exactly as the kernel addresses it (each
// tile's halo box per 64-channel chunk and filter depth, zeros outside the input; tap
// (y, x) of m64 block b reading box pixel (i + y dh, 8 b + j + x dw); the tile's rows
// stored through halo_rows, pixels past the output's edge skipped) and compared with the
// double reference on odd problems: output sizes not multiples of the tile, asymmetric
// padding, dilation along every dimension, G = 2, several chunks, 2-D and 3-D. The GPU
// test (ConvGpuInstances) runs the kernel itself. Also: every output pixel is stored once,
// and the refusals name their rule.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <vector>

#include "kdecl/kernels/conv/halo_tiles.hpp"
#include "kdecl/reference/conv_reference.hpp"
#include "random_conv_tensor.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

// The output of `p` (fp32, normalized, halo_reason empty) as the halo kernel computes it,
// in the reference's logical order (n, z, y, x, g, k).
std::vector<double> halo_convolution(const P& p, int tile_m, const float* in, const float* wei) {
  const kernels::halo_tiling t = kernels::halo_tiling_of(p, tile_m);
  const kernels::halo_rows rows = kernels::halo_rows_of(p, t);
  const auto out = p.output_dims();
  const std::int64_t cg = p.c_per_group(), kg = p.k_per_group();
  const std::int64_t Z = p.filter_dims[0], Y = p.filter_dims[1], X = p.filter_dims[2];
  const auto& si = p.in_strides;
  const auto& sw = p.wei_strides;
  std::vector<double> result(std::size_t(p.elements(conv_tensor::output)), std::nan(""));
  std::vector<double> box(std::size_t(t.box_rows * t.box_cols * kernels::halo_chunk_channels));
  std::vector<double> acc(std::size_t(tile_m * kg));
  for (std::int64_t g = 0; g < p.g; ++g)
    for (std::int64_t tile = 0; tile < t.tiles; ++tile) {
      std::fill(acc.begin(), acc.end(), 0.0);
      const kernels::halo_rows::pixel first = rows.at(int(tile * tile_m));
      for (std::int64_t z = 0; z < Z; ++z)
        for (std::int64_t cc = 0; cc < cg / kernels::halo_chunk_channels; ++cc) {
          // The chunk's box, zeros outside the input (TMA's out-of-bounds fill).
          const std::int64_t iz = first.z + z * p.dilation_dims[0] - p.pad_left_dims[0];
          for (int r = 0; r < t.box_rows; ++r)
            for (int col = 0; col < t.box_cols; ++col)
              for (int c = 0; c < kernels::halo_chunk_channels; ++c) {
                const std::int64_t iy = first.y - p.pad_left_dims[1] + r, ix = first.x - p.pad_left_dims[2] + col;
                const bool inside = iz >= 0 && iz < p.input_dims[0] && iy >= 0 && iy < p.input_dims[1] && ix >= 0 &&
                                    ix < p.input_dims[2];
                const std::int64_t channel = g * cg + cc * kernels::halo_chunk_channels + c;
                box[std::size_t((r * t.box_cols + col) * kernels::halo_chunk_channels + c)] =
                    inside ? in[first.n * si.n + iz * si.spatial[0] + iy * si.spatial[1] + ix * si.spatial[2] +
                                channel * si.c]
                           : 0.0;
              }
          for (std::int64_t y = 0; y < Y; ++y)
            for (std::int64_t x = 0; x < X; ++x)
              for (int m = 0; m < tile_m; ++m) {
                const int block = m / 64, i = m % 64 / 8, j = m % 8;
                const std::int64_t r = i + y * p.dilation_dims[1];
                const std::int64_t col = block * 8 + j + x * p.dilation_dims[2];
                EXPECT_LT(r, t.box_rows);
                EXPECT_LT(col, t.box_cols);
                for (std::int64_t k = 0; k < kg; ++k) {
                  double sum = 0;
                  for (int c = 0; c < kernels::halo_chunk_channels; ++c)
                    sum += box[std::size_t((r * t.box_cols + col) * kernels::halo_chunk_channels + c)] *
                           wei[g * sw.g + k * sw.n + z * sw.spatial[0] + y * sw.spatial[1] + x * sw.spatial[2] +
                               (cc * kernels::halo_chunk_channels + c) * sw.c];
                  acc[std::size_t(m * kg + k)] += sum;
                }
              }
        }
      for (int m = 0; m < tile_m; ++m) {
        const int row = int(tile * tile_m + m);
        if (!rows.stored(row)) continue;
        const kernels::halo_rows::pixel q = rows.at(row);
        for (std::int64_t k = 0; k < kg; ++k) {
          const std::int64_t logical = ((((q.n * out[0] + q.z) * out[1] + q.y) * out[2] + q.x) * p.g + g) * kg + k;
          result[std::size_t(logical)] = acc[std::size_t(m * kg + k)];
        }
      }
    }
  return result;
}

TEST(HaloTiles, TheKernelsAddressingComputesTheConvolution) {
  struct halo_case {
    P problem;
    int tile_m;
  };
  const halo_case cases[] = {
      {P{}.batch(2).channels(64, 5).input_size({13, 21}).filter_size({3}).padding({1, 0}, {0, 1}), 128},
      {P{}.batch(1).channels(128, 6).groups(2).input_size({11, 30}).filter_size({1, 5}).dilation({1, 2})
           .padding({0, 4}), 128},
      {P{}.batch(1).channels(192, 2).input_size({9, 12}).filter_size({2, 3}).padding({1, 1}, {0, 1}), 64},
      {P{}.batch(1).channels(64, 3).input_size({7, 9}).filter_size({3}).padding({0}), 256},  // no padding
      {P{}.batch(1).channels(128, 2).input_size({4, 6, 17}).filter_size({3}).dilation({2, 1, 1})
           .padding({2, 1, 1}), 128},                                                          // 3-D
  };
  int seed = 1;
  for (const auto& c : cases) {
    const P p = P(c.problem).dtype(dtype::fp32).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    ASSERT_FALSE(kernels::halo_reason(p, c.tile_m)) << p.describe() << ": " << *kernels::halo_reason(p, c.tile_m);
    auto x = testing::random_conv_tensor(p, conv_tensor::input, seed++);
    auto w = testing::random_conv_tensor(p, conv_tensor::weight, seed++);
    const auto expected = reference::grouped_conv(p, {x.data(), w.data(), nullptr});
    const auto got = halo_convolution(p, c.tile_m, reinterpret_cast<const float*>(x.data()),
                                      reinterpret_cast<const float*>(w.data()));
    ASSERT_EQ(got.size(), expected.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      ASSERT_NEAR(got[i], expected[i], 1e-9 * (1.0 + std::abs(expected[i]))) << p.describe() << " element " << i;
  }
}

// And the epilogue's per-tile map (of_tile: shifts and masks) agrees with the full decode.
TEST(HaloTiles, EveryOutputPixelIsStoredOnce) {
  const P p = P{}.batch(3).channels(64, 64).input_size({5, 19, 23}).filter_size({3}).padding({1}).normalized();
  for (int tile_m : {64, 128, 192, 256}) {
    const kernels::halo_tiling t = kernels::halo_tiling_of(p, tile_m);
    const kernels::halo_rows rows = kernels::halo_rows_of(p, t);
    std::set<std::int64_t> offsets;
    std::int64_t stored = 0;
    for (std::int64_t m = 0; m < t.rows(); ++m) {
      const kernels::halo_tile_rows tile = rows.of_tile(int(m / tile_m * tile_m));
      ASSERT_EQ(tile.stored(int(m)), rows.stored(int(m))) << tile_m << " row " << m;
      if (rows.stored(int(m))) {
        ++stored;
        offsets.insert(rows(int(m)));
        ASSERT_EQ(tile(int(m)), rows(int(m))) << tile_m << " row " << m;
      }
    }
    EXPECT_EQ(stored, p.n * p.output_pixels()) << tile_m;
    EXPECT_EQ(std::int64_t(offsets.size()), stored) << tile_m;
    EXPECT_EQ(t.box_cols % 8, 0);  // every output row in the same phase of the 128-byte swizzle
  }
}

TEST(HaloTiles, RefusalsNameTheRule) {
  const auto reason = [](const P& q, int tile_m = 128) {
    const auto why = kernels::halo_reason(q.normalized(), tile_m);
    return why ? *why : std::string();
  };
  const P base = P{}.batch(1).channels(64, 64).input_size({16, 16}).filter_size({3}).padding({1});
  EXPECT_EQ(reason(base), "");
  EXPECT_NE(reason(P(base).stride({2})).find("unit strides"), std::string::npos);
  EXPECT_NE(reason(P(base).channels(96, 64)).find("C/G a multiple of 64"), std::string::npos);
  EXPECT_NE(reason(P(base).filter_size({5}).padding({2})).find("the filter reaches 5 input rows"), std::string::npos);
  EXPECT_NE(reason(P(base).filter_size({1, 11}).padding({0, 5})).find("reaches 11 input columns"), std::string::npos);
  EXPECT_NE(reason(P{}.batch(1).channels(64, 64).input_size({40}).filter_size({3})).find("2-D or 3-D"),
            std::string::npos);
}

}  // namespace
}  // namespace kdecl
