// The plans of the sm_80 backward convolutions, checked on the host:
//  * bwd_data's stride phases (bwd_data_phase.hpp): over every geometry of a
//    sweep, the phases visit each (input position, tap, dY position) triple of
//    the convolution's definition exactly once, and nothing else; the weight
//    rows and dX rows they address are the definition's.
//  * bwd_weight's split-K plans (conv_bwd_plan.hpp), sm_80 and sm_90: at least one
//    range, none empty, partials within their cap, more ranges where the blocks
//    are few.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>

#include "kdecl/kernels/conv/bwd_data_phase.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"

namespace kdecl {
namespace {

using namespace kernels;

TEST(BwdDataPhases, EveryContributionExactlyOnce) {
  int geometries = 0;
  for (int size = 1; size <= 9; ++size)
    for (int filter = 1; filter <= 5; ++filter)
      for (int stride = 1; stride <= 4; ++stride)
        for (int dilation = 1; dilation <= 3; ++dilation)
          for (int pad = 0; pad < (filter - 1) * dilation + 1 && pad <= 3; ++pad)
            for (int pad_right = 0; pad_right <= 2; ++pad_right) {
              const int span = (filter - 1) * dilation + 1;
              if (size + pad + pad_right < span) continue;
              const int out = (size + pad + pad_right - span) / stride + 1;
              std::set<std::tuple<int, int, int>> want, got;
              for (int o = 0; o < out; ++o)
                for (int f = 0; f < filter; ++f) {
                  const int i = o * stride - pad + f * dilation;
                  if (i >= 0 && i < size) want.insert({i, f, o});
                }
              int rows = 0;
              for (int r = 0; r < stride; ++r) {
                const auto d = phase_dim(r, size, filter, stride, dilation, pad);
                rows += d.rows;
                for (int a = 0; a < d.rows; ++a)
                  for (int b = 0; b < d.taps; ++b) {
                    const int i = d.i0 + a * stride, f = d.f0 + b * d.tap_step, o = d.base + a - b * d.dy_step;
                    ASSERT_EQ((i + pad) % stride, r);
                    ASSERT_LT(f, filter);
                    if (o >= 0 && o < out) {  // the gather reads zero outside dY
                      ASSERT_EQ(o * stride - pad + f * dilation, i);
                      ASSERT_TRUE(got.insert({i, f, o}).second) << "visited twice";
                    }
                  }
              }
              ASSERT_EQ(rows, size) << "every input position in exactly one phase";
              ASSERT_EQ(got, want) << "size " << size << " filter " << filter << " stride " << stride << " dilation "
                                   << dilation << " pad " << pad;
              ++geometries;
            }
  EXPECT_GT(geometries, 1000);
}

TEST(BwdDataPhases, RowsAndWeightsAddressTheDefinition) {
  auto p = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(2).channels(8, 12).groups(2)
               .input_size({5, 7, 6}).filter_size({3, 2, 3}).stride({2, 3, 1}).dilation({1, 2, 1})
               .padding({1, 0, 1}, {0, 1, 2}).dtype(dtype::bf16).normalized();
  ASSERT_FALSE(p.validate());
  const auto g = bwd_data_geometry_of(p);
  EXPECT_EQ(g.phases, 6);
  std::map<std::int64_t, int> rows_seen;
  for (int phase = 0; phase < g.phases; ++phase) {
    const auto ph = phase_of(g, phase);
    EXPECT_EQ(ph.gather.m, g.n * ph.dim[0].rows * ph.dim[1].rows * ph.dim[2].rows);
    EXPECT_EQ(ph.gather.k, g.kg * ph.dim[0].taps * ph.dim[1].taps * ph.dim[2].taps);
    for (int m = 0; m < ph.gather.m; ++m) ++rows_seen[phase_row_offset(g, ph, m)];
    for (int kk = 0; kk < ph.gather.k; ++kk) {
      const int t = kk / g.kg, k = kk % g.kg;
      const int e1 = ph.dim[1].taps, e2 = ph.dim[2].taps;
      const int f[3] = {ph.dim[0].f0 + t / (e1 * e2) * ph.dim[0].tap_step, ph.dim[1].f0 + t / e2 % e1 * ph.dim[1].tap_step,
                        ph.dim[2].f0 + t % e2 * ph.dim[2].tap_step};
      const int r[3] = {phase / (g.stride[1] * g.stride[2]), phase / g.stride[2] % g.stride[1], phase % g.stride[2]};
      for (int d = 0; d < 3; ++d) EXPECT_EQ(f[d] * g.dilation[d] % g.stride[d], r[d]) << "a tap of the phase";
      EXPECT_EQ(phase_weight_offset(g, ph, kk),
                k * p.wei_strides.n + f[0] * p.wei_strides.spatial[0] + f[1] * p.wei_strides.spatial[1] +
                    f[2] * p.wei_strides.spatial[2]);
    }
  }
  // Every dX pixel of a group is the row of exactly one phase.
  EXPECT_EQ(rows_seen.size(), std::size_t(p.n * p.input_pixels()));
  for (const auto& [at, count] : rows_seen) EXPECT_EQ(count, 1) << at;
}

grouped_conv_problem weight_problem(std::int64_t n, std::int64_t c, std::int64_t k, std::int64_t hw) {
  return grouped_conv_problem{}.direction(conv_direction::bwd_weight).batch(n).channels(c, k).input_size({hw, hw})
      .filter_size({3}).padding({1}).dtype(dtype::bf16).normalized();
}

TEST(BwdWeightSplits, FillTheMachineWithoutEmptyRanges) {
  for (std::int64_t n : {1, 4, 32, 256})
    for (std::int64_t ch : {16, 64, 256, 512})
      for (std::int64_t hw : {7, 14, 56})
        for (int sms : {1, 108, 132}) {
          const auto p = weight_problem(n, ch, ch, hw);
          const int s = bwd_weight_gpu_splits(p, 128, 128, 32, sms);
          const auto e = p.implicit_gemm();
          const std::int64_t k_tiles = (e.k + 31) / 32;
          ASSERT_GE(s, 1);
          ASSERT_LE(s, k_tiles);
          const std::int64_t per = (k_tiles + s - 1) / s;
          EXPECT_GT(k_tiles - (s - 1) * per, 0) << "the last range is empty";
          EXPECT_LE(std::int64_t(s) * e.m * e.n * 4, std::int64_t{256} << 20);
          if (s > 1) EXPECT_GE(e.k / s, 512 - 32);
          EXPECT_EQ(s, bwd_weight_gpu_splits(p, 128, 128, 32, sms)) << "a function of the problem and the machine";
        }
  // A layer of few output tiles and a long depth is split; one of many tiles is not.
  EXPECT_GT(bwd_weight_gpu_splits(weight_problem(32, 64, 64, 56), 128, 128, 32, 132), 8);
  EXPECT_EQ(bwd_weight_gpu_splits(weight_problem(1, 512, 512, 7), 128, 128, 32, 132), 1);
}

// The sm_90 plan: clusters of at most 8 (only where the kernel can reduce in one and the
// clusters fit), every range at least 8 k tiles deep, partials within 256 MiB, a split
// only where the output tiles leave SMs idle.
TEST(BwdWeightSplits, Sm90SplitsDeepLayersOfFewTiles) {
  using kernels::cuda::sm90::bwd_weight_sm90_split;
  int capacity[9] = {0, 0, 132, 132, 128, 120, 126, 112, 128};
  for (std::int64_t n : {1, 4, 32, 256})
    for (std::int64_t ch : {16, 64, 256, 512})
      for (std::int64_t hw : {7, 14, 56})
        for (bool cluster_ok : {false, true}) {
          const auto p = weight_problem(n, ch, ch, hw);
          const auto s = bwd_weight_sm90_split(p, 128, 256, 64, 132, capacity, cluster_ok);
          const auto e = p.implicit_gemm();
          const std::int64_t k_tiles = (e.k + 63) / 64;
          ASSERT_GE(s.cluster, 1);
          ASSERT_LE(s.cluster, cluster_ok ? 8 : 1);
          ASSERT_GE(s.ranges, 1);
          if (s.total() > 1) EXPECT_GE(k_tiles / s.total(), 8) << p.describe();
          EXPECT_LE(std::int64_t(s.ranges > 1 ? s.ranges : 0) * e.m * e.n * 4, std::int64_t{256} << 20);
          EXPECT_EQ(s, bwd_weight_sm90_split(p, 128, 256, 64, 132, capacity, cluster_ok));
        }
  // ResNet's 64-channel 3x3 layer at batch 32: 3 output tiles, a depth of 100,352 pixels.
  const auto deep = bwd_weight_sm90_split(weight_problem(32, 64, 64, 56), 128, 256, 64, 132, capacity, true);
  EXPECT_GE(deep.total() * 3, 66) << "at least half the SMs busy";
  EXPECT_EQ(bwd_weight_sm90_split(weight_problem(32, 64, 64, 56), 128, 256, 64, 132, capacity, false).cluster, 1);
  // Many output tiles and a short depth: no split.
  EXPECT_EQ(bwd_weight_sm90_split(weight_problem(1, 512, 512, 7), 128, 256, 64, 132, capacity, true).total(), 1);
  // No cluster of a size whose clusters do not fit.
  int none[9] = {};
  EXPECT_EQ(bwd_weight_sm90_split(weight_problem(32, 64, 64, 56), 128, 256, 64, 132, none, true).cluster, 1);
}

// The plan's choices on layers whose every split was timed (H200, 2026-11-28,
// docs/perf/h200-2026-11-28-conv-bwd-weight-split/): the fastest measured, or within 5% of it.
TEST(BwdWeightSplits, Sm90PlanKeepsTheMeasuredChoices) {
  using kernels::cuda::sm90::bwd_weight_split;
  using kernels::cuda::sm90::bwd_weight_sm90_split;
  const auto layer = [](std::int64_t n, std::int64_t c, std::int64_t k, conv_dims in, std::int64_t pad) {
    return grouped_conv_problem{}.direction(conv_direction::bwd_weight).batch(n).channels(c, k).input_size(in)
        .filter_size({3}).padding({pad}).dtype(dtype::bf16).normalized();
  };
  const auto plan = [](const grouped_conv_problem& p, int tile_n) {
    return bwd_weight_sm90_split(p, 128, tile_n, 64, 132, nullptr, true);
  };
  // 432 tiles of a short depth: 146 us unsplit, 164 on clusters of 3, 210 to 313 on more.
  EXPECT_EQ(plan(layer(32, 512, 512, {2, 7, 7}, 1), 128), (bwd_weight_split{1, 1}));
  // 72 tiles of 4,096 pixels: clusters of 3 (56 us) against 62 unsplit and 80 on clusters of 7.
  EXPECT_EQ(plan(layer(1, 512, 512, {66, 66}, 0), 256), (bwd_weight_split{3, 1}));
  // 54 deep tiles: clusters of 2 (142 us; 275 unsplit, 202 on clusters of 6).
  EXPECT_EQ(plan(layer(32, 128, 256, {8, 28, 28}, 1).stride({2}).normalized(), 128), (bwd_weight_split{2, 1}));
  // ResNet-50 layer4 at batch 32: 72 tiles, 25 k-blocks: unsplit (30 us; 35 to 64 split).
  EXPECT_EQ(plan(layer(32, 512, 512, {7, 7}, 1), 256), (bwd_weight_split{1, 1}));
  // A small layer (5 tiles, 49 k-blocks): clusters, not ranges (the partials' second launch cost
  // 16.9 us against 13.6 on clusters).
  const auto small = plan(layer(1, 64, 64, {56, 56}, 1), 128);
  EXPECT_GT(small.cluster, 1);
  EXPECT_EQ(small.ranges, 1);
}

// KDECL_CONV_BWD_WEIGHT_SPLIT's text: "CLUSTER,RANGES", taken only where the kernel can run it.
TEST(BwdWeightSplits, Sm90OverrideIsParsedAndChecked) {
  using kernels::cuda::sm90::bwd_weight_split;
  using kernels::cuda::sm90::bwd_weight_split_override;
  const auto p = weight_problem(32, 64, 64, 56);  // 1,568 k tiles of 64
  EXPECT_EQ(bwd_weight_split_override("3,2", p, 64, true), (bwd_weight_split{3, 2}));
  EXPECT_EQ(bwd_weight_split_override("1,1", p, 64, false), (bwd_weight_split{1, 1}));
  for (const char* bad : {"", "3", "3,", ",2", "3;2", "3,2,1", "0,1", "9,1", "1,0", "-1,1", "2,1x", "1,2000"})
    EXPECT_FALSE(bwd_weight_split_override(bad, p, 64, true)) << bad;
  EXPECT_FALSE(bwd_weight_split_override(nullptr, p, 64, true));
  EXPECT_FALSE(bwd_weight_split_override("2,1", p, 64, false)) << "no cluster where the kernel cannot reduce in one";
  const auto shallow = weight_problem(1, 64, 64, 7);  // 49 pixels: one k tile
  EXPECT_FALSE(bwd_weight_split_override("2,1", shallow, 64, true)) << "an empty range";
  EXPECT_EQ(bwd_weight_split_override("1,1", shallow, 64, true), (bwd_weight_split{1, 1}));
}

}  // namespace
}  // namespace kdecl
