// The narrow-channel backward-data plan (kernels/conv/narrow_bwd_data_plan.hpp): the kernel's
// addressing emulated on the host exactly as cuda/direct/narrow_bwd_data.cuh runs it (per
// stride phase and tile: the phase's tap lists, the staged dy tile of (th + spread_y) x
// (tw + spread_x) pixels with zeros outside dy, lattice pixel (i, j) reading staged pixel
// (i + base_y - min base_y, j + base_x - min base_x) per tap, dx pixel (phase + stride x
// lattice index) stored where inside) and compared with the double reference: strides 1 to 3,
// a dimension with fewer taps than the stride (pixels no tap reaches), dilation, asymmetric
// padding, every tile shape, 1-D, 3-D (per dx depth the depth taps that reach it, each staging
// its dy plane, the sums carried over them). Every dx pixel is stored exactly once. The GPU test
// (ConvDirectGpu) runs the kernel itself. Also: which problems the path takes, and its refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/reference/conv_reference.hpp"
#include "random_conv_tensor.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;
using plan = kernels::narrow_bwd_data_plan;

// dx of `p` (fp32, normalized) as the kernel computes it with tile `t`, in the reference's
// logical order (n, z, y, x, c); `stores` counts each element's writes.
std::vector<double> narrow_emulation(const P& p, plan::tile t, const float* dy, const float* wei,
                                     std::vector<int>& stores) {
  const auto out = p.output_dims();
  const int D = int(p.input_dims[0]), H = int(p.input_dims[1]), W = int(p.input_dims[2]);
  const int Do = int(out[0]), Ho = int(out[1]), Wo = int(out[2]);
  const int C = int(p.c), K = int(p.k), sy = int(p.stride_dims[1]), sx = int(p.stride_dims[2]);
  const int sz = int(p.stride_dims[0]), pz = int(p.pad_left_dims[0]), dlz = int(p.dilation_dims[0]);
  const plan::dim_plan py = plan::plan_dim(p, 1), px = plan::plan_dim(p, 2);
  const int tiles_y = (py.lattice + t.th - 1) / t.th, tiles_x = (px.lattice + t.tw - 1) / t.tw;
  const auto& so = p.out_strides;
  const auto& sw = p.wei_strides;
  std::vector<double> dx(std::size_t(p.elements(conv_tensor::input)), std::nan(""));
  stores.assign(dx.size(), 0);
  for (int n = 0; n < p.n; ++n)
    for (int iz = 0; iz < D; ++iz)  // dx depths (one in 1-D and 2-D)
      for (int phase = 0; phase < sy * sx; ++phase) {
        const int phy = phase / sx, phx = phase % sx;
        const kernels::narrow_taps ty_list = kernels::narrow_phase_taps(
            phy, int(p.pad_left_dims[1]), int(p.filter_dims[1]), int(p.dilation_dims[1]), sy);
        const kernels::narrow_taps tx_list = kernels::narrow_phase_taps(
            phx, int(p.pad_left_dims[2]), int(p.filter_dims[2]), int(p.dilation_dims[2]), sx);
        for (int ty = 0; ty < tiles_y; ++ty)
          for (int tx = 0; tx < tiles_x; ++tx) {
            std::vector<double> acc(std::size_t(t.th * t.tw * C), 0.0);
            for (int fz = 0; fz < int(p.filter_dims[0]); ++fz) {
              const int rz = iz + pz - fz * dlz;
              if (rz < 0 || rz % sz != 0 || rz / sz >= Do || !ty_list.count || !tx_list.count) continue;
              const int oz = rz / sz;
              const int min_by = ty_list.base[ty_list.count - 1], min_bx = tx_list.base[tx_list.count - 1];
              const int rows = t.th + ty_list.base[0] - min_by, cols = t.tw + tx_list.base[0] - min_bx;
              EXPECT_LE(rows, t.th + py.spread);
              EXPECT_LE(cols, t.tw + px.spread);
              const int oy_lo = ty * t.th + min_by, ox_lo = tx * t.tw + min_bx;
              std::vector<double> staged(std::size_t(rows * cols * K));
              for (int r = 0; r < rows; ++r)
                for (int col = 0; col < cols; ++col)
                  for (int k = 0; k < K; ++k) {
                    const int oy = oy_lo + r, ox = ox_lo + col;
                    const bool inside = oy >= 0 && oy < Ho && ox >= 0 && ox < Wo;
                    staged[std::size_t((r * cols + col) * K + k)] =
                        inside ? dy[n * so.n + oz * so.spatial[0] + oy * so.spatial[1] + ox * so.spatial[2] +
                                    k * so.c]
                               : 0.0;
                  }
              for (int a = 0; a < ty_list.count; ++a)
                for (int b = 0; b < tx_list.count; ++b)
                  for (int i = 0; i < t.th; ++i)
                    for (int j = 0; j < t.tw; ++j) {
                      const int r = i + ty_list.base[a] - min_by, col = j + tx_list.base[b] - min_bx;
                      for (int c = 0; c < C; ++c) {
                        double sum = 0;
                        for (int k = 0; k < K; ++k)
                          sum += staged[std::size_t((r * cols + col) * K + k)] *
                                 wei[k * sw.n + fz * sw.spatial[0] + ty_list.tap[a] * sw.spatial[1] +
                                     tx_list.tap[b] * sw.spatial[2] + c * sw.c];
                        acc[std::size_t((i * t.tw + j) * C + c)] += sum;
                      }
                    }
            }
            for (int i = 0; i < t.th; ++i)
              for (int j = 0; j < t.tw; ++j) {
                const int iy = phy + sy * (ty * t.th + i), ix = phx + sx * (tx * t.tw + j);
                if (iy >= H || ix >= W) continue;
                for (int c = 0; c < C; ++c) {
                  const std::size_t logical = std::size_t((((std::int64_t(n) * D + iz) * H + iy) * W + ix) * C + c);
                  dx[logical] = acc[std::size_t((i * t.tw + j) * C + c)];
                  ++stores[logical];
                }
              }
          }
      }
  return dx;
}

TEST(NarrowBwdData, TheKernelsAddressingComputesTheInputGradient) {
  const P cases[] = {
      P{}.batch(2).channels(3, 16).input_size({37, 41}).filter_size({7}).stride({2}).padding({3}),  // ResNet stem
      P{}.batch(1).channels(3, 24).input_size({21, 18}).filter_size({3}).stride({2}).padding({0, 1}, {1, 0}),
      P{}.batch(1).channels(1, 8).input_size({19, 23}).filter_size({3}).padding({0}),               // U-Net stem
      P{}.batch(1).channels(8, 5).input_size({17, 20}).filter_size({5, 3}).dilation({2, 1}).padding({4, 1}),
      P{}.batch(1).channels(2, 6).input_size({16, 25}).filter_size({2, 5}).stride({3, 2}).padding({0}),  // taps < stride
      P{}.batch(1).channels(4, 9).input_size({11, 13}).filter_size({4, 3}).stride({3, 2}).dilation({1, 2})
          .padding({2, 1}, {1, 2}),
      P{}.batch(2).channels(3, 7).input_size({1, 70}).filter_size({1, 7}).stride({1, 2}).padding({0, 3}),  // 1-D
      // 3-D: R3D-18's stem (3x7x7, stride 1x2x2), strides in depth, depth dilation, overlap in depth only.
      P{}.batch(2).channels(3, 10).input_size({5, 19, 22}).filter_size({3, 7, 7}).stride({1, 2, 2}).padding({1, 3, 3}),
      P{}.batch(1).channels(2, 9).input_size({7, 9, 11}).filter_size({3, 3, 3}).stride({2, 2, 2}).padding({1, 0, 1}),
      P{}.batch(1).channels(4, 8).input_size({9, 6, 7}).filter_size({2, 3, 1}).dilation({3, 1, 1})
          .padding({2, 1, 0}, {1, 1, 0}),
      P{}.batch(1).channels(1, 6).input_size({6, 8, 8}).filter_size({3, 1, 1}).padding({1, 0, 0}),
  };
  int seed = 11;
  for (const P& raw : cases) {
    const P p = P(raw).dtype(dtype::fp32).direction(conv_direction::bwd_data).normalized();
    ASSERT_FALSE(p.validate()) << *p.validate();
    ASSERT_TRUE(plan::applies(p)) << p.describe();
    auto dy = testing::random_conv_tensor(p, conv_tensor::output, seed++);
    auto w = testing::random_conv_tensor(p, conv_tensor::weight, seed++);
    const auto want = reference::grouped_conv(p, {nullptr, w.data(), dy.data()});
    for (const plan::tile& t : plan::tiles) {
      std::vector<int> stores;
      const auto got = narrow_emulation(p, t, reinterpret_cast<const float*>(dy.data()),
                                        reinterpret_cast<const float*>(w.data()), stores);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(stores[i], 1) << p.describe() << " tile " << t.th << "x" << t.tw << " element " << i;
        ASSERT_NEAR(got[i], want[i], 1e-9 * (1.0 + std::abs(want[i])))
            << p.describe() << " tile " << t.th << "x" << t.tw << " element " << i;
      }
    }
  }
}

TEST(NarrowBwdData, PhaseTapsAndSpread) {
  // 7x7, stride 2, pad 3: phase 0 is reached by taps 1, 3, 5 (bases 1, 0, -1), phase 1 by 0, 2, 4, 6.
  const auto even = kernels::narrow_phase_taps(0, 3, 7, 1, 2);
  ASSERT_EQ(even.count, 3);
  EXPECT_EQ(even.tap[0], 1);
  EXPECT_EQ(even.base[0], 1);
  EXPECT_EQ(even.base[2], -1);
  const auto odd = kernels::narrow_phase_taps(1, 3, 7, 1, 2);
  ASSERT_EQ(odd.count, 4);
  EXPECT_EQ(odd.base[0], 2);
  EXPECT_EQ(odd.base[3], -1);
  const P stem = P{}.batch(32).channels(3, 64).input_size({224, 224}).filter_size({7}).stride({2}).padding({3})
                     .dtype(dtype::bf16).direction(conv_direction::bwd_data).normalized();
  const auto d = plan::plan_dim(stem, 2);
  EXPECT_EQ(d.spread, 3);
  EXPECT_EQ(d.taps, 4);
  EXPECT_EQ(d.lattice, 112);
  // 11 x 67 staged pixels of 80 bytes and 16 taps x 2 steps x 256 bytes of fragments.
  EXPECT_EQ(plan::smem_bytes(stem, plan::tiles[0]), 11L * 67 * 80 + 16L * 2 * 256);
  ASSERT_TRUE(plan::tile_for(stem, 227 * 1024));
  EXPECT_EQ(plan::tile_for(stem, 227 * 1024)->th, 8);
  // A 1-D layer takes a one-row tile.
  const P row = P{}.batch(1).channels(3, 16).input_size({1, 300}).filter_size({1, 5}).padding({0, 2})
                    .dtype(dtype::bf16).direction(conv_direction::bwd_data).normalized();
  ASSERT_TRUE(plan::tile_for(row, 227 * 1024));
  EXPECT_EQ(plan::tile_for(row, 227 * 1024)->th, 1);
}

TEST(NarrowBwdData, WhichLayersTakeThePathAndItsRefusals) {
  auto bwd = [](P p) { return p.dtype(dtype::bf16).direction(conv_direction::bwd_data).normalized(); };
  EXPECT_TRUE(plan::applies(bwd(P{}.batch(1).channels(3, 64).input_size({32, 32}).filter_size({3}).padding({1}))));
  EXPECT_TRUE(plan::applies(bwd(P{}.batch(1).channels(8, 64).input_size({32, 32}).filter_size({3}).padding({1}))));
  EXPECT_FALSE(plan::applies(bwd(P{}.batch(1).channels(9, 64).input_size({32, 32}).filter_size({3}).padding({1}))));
  EXPECT_FALSE(plan::applies(bwd(P{}.batch(1).channels(16, 16).groups(4).input_size({9, 9}).filter_size({3}))));
  EXPECT_TRUE(plan::applies(bwd(P{}.batch(1).channels(3, 8).input_size({4, 9, 9}).filter_size({3}))));  // 3-D
  EXPECT_FALSE(plan::applies(P{}.batch(1).channels(3, 64).input_size({32, 32}).filter_size({3}).normalized()));
  // No overlap between taps (patchify, 1x1): one plain GEMM, the implicit GEMMs' case.
  EXPECT_FALSE(plan::applies(bwd(P{}.batch(1).channels(3, 96).input_size({224, 224}).filter_size({4}).stride({4}))));
  EXPECT_FALSE(plan::applies(bwd(P{}.batch(1).channels(8, 32).input_size({1, 1}).filter_size({1}))));
  EXPECT_TRUE(plan::applies(bwd(P{}.batch(1).channels(3, 96).input_size({224, 224}).filter_size({2, 5}).stride({3, 2}))));
  // A filter wider than the tap lists, and shared memory too small for any tile.
  auto why = plan::why_not(bwd(P{}.batch(1).channels(3, 8).input_size({40, 40}).filter_size({1, 33})), 227 * 1024);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("at most 32 taps per dimension; this one has 33"), std::string::npos) << *why;
  why = plan::why_not(bwd(P{}.batch(1).channels(3, 8).input_size({40, 40}).filter_size({3})), 4096);
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("bytes of shared memory for this filter, stride and dilation; the device allows 4096"),
            std::string::npos)
      << *why;
  EXPECT_FALSE(plan::why_not(bwd(P{}.batch(1).channels(3, 8).input_size({40, 40}).filter_size({3})), 227 * 1024));
}

}  // namespace
}  // namespace kdecl
