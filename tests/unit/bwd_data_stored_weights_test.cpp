// Backward-data's phases reading W as stored (kernels/conv/bwd_data_stored_weights.hpp): for
// every phase of odd strided problems, every forward tap's line (times the line stride) plus
// a channel, an output channel and a group must address the element the flipped copy
// (flipped_weights_map::source) takes for it, and lie inside the lines the filter spans.
// Packed, padded and group-major weights; 1-D, 2-D and 3-D; filters smaller than the stride.
#include <gtest/gtest.h>

#include <vector>

#include "kdecl/kernels/conv/bwd_data_phases.hpp"
#include "kdecl/kernels/conv/bwd_data_stored_weights.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;

std::vector<P> problems() {
  conv_tensor_strides padded;  // KYXC with each filter row padded to 5 positions and C padded to 12
  padded.c = 1;
  padded.spatial = {0, 5 * 12, 12};
  padded.n = 3 * 5 * 12;
  padded.g = 0;
  return {
      P{}.batch(2).channels(8, 64).input_size({11, 9}).filter_size({3}).stride({2}).padding({1}),
      P{}.batch(1).channels(16, 64).input_size({13, 11}).filter_size({3}).stride({2}).dilation({3}),
      P{}.batch(1).channels(8, 64).input_size({14, 13}).filter_size({5, 4}).stride({3, 2}).padding({2, 1}, {0, 2}),
      P{}.batch(2).channels(8, 64).input_size({19}).filter_size({3}).stride({4}).padding({1}),  // filter < stride
      P{}.batch(1).channels(16, 128).groups(2).input_size({5, 6, 7}).filter_size({3}).stride({2, 1, 2}).padding({1}),
      P{}.batch(1).channels(8, 64).input_size({9, 10, 11}).filter_size({3, 1, 3}).stride({2}).padding({1, 0, 1}),
      P{}.batch(2).channels(16, 128).groups(2).input_size({9, 7}).filter_size({3}).stride({1, 2}).padding({1})
          .layout(conv_layout::gnhwc),  // group-major
      P{}.batch(1).channels(8, 64).input_size({9, 8}).filter_size({1}).stride({2}),  // 1x1 s2: one phase, one tap
      P{}.batch(1).channels(8, 64).input_size({12, 12}).filter_size({3}).stride({2}).padding({1}).weight_strides(padded),
  };
}

TEST(BwdDataStoredWeights, EveryPhaseTapAddressesTheElementTheFlippedCopyTakes) {
  int checked = 0;
  for (P raw : problems()) {
    const P p = raw.direction(conv_direction::bwd_data).normalized();
    ASSERT_FALSE(p.validate().has_value()) << p.describe();
    const kernels::stored_weights_lines lines = kernels::stored_weights_lines_of(p);
    for (const kernels::bwd_data_phase_problem& ph : kernels::bwd_data_phases(p)) {
      if (ph.zero) continue;
      const kernels::flipped_weights_map& m = ph.weights;
      const kernels::stored_weight_taps taps = kernels::stored_weight_taps_of(m, lines);
      for (int z = 0; z < m.filter[0]; ++z)
        for (int y = 0; y < m.filter[1]; ++y)
          for (int x = 0; x < m.filter[2]; ++x) {
            const int forward_tap[3] = {z, y, x};  // b': the flipped position the forward kernel walks
            const int line = taps.line_of(forward_tap);
            ASSERT_GE(line, 0) << p.describe();
            ASSERT_LT(line, lines.count) << p.describe();
            // The backward tap b = taps - 1 - b' in each dimension, as source() counts them.
            const int b = ((m.filter[0] - 1 - z) * m.filter[1] + (m.filter[1] - 1 - y)) * m.filter[2] + (m.filter[2] - 1 - x);
            for (int g : {0, m.groups - 1})
              for (int k : {0, 1, m.kg - 1})
                for (int c : {0, m.cg - 1}) {
                  const std::int64_t stored = g * m.src_g + k * m.src_k + std::int64_t(line) * lines.stride + c;
                  ASSERT_EQ(stored, m.source(g, k, c, b)) << p.describe() << " tap " << z << "," << y << "," << x;
                  ++checked;
                }
          }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(BwdDataStoredWeights, APackedFilterIsOneLinePerPositionAndAOneByOneFilterOneLine) {
  const P p3 = P{}.batch(1).channels(24, 64).input_size({8, 8, 8}).filter_size({3, 5, 7}).stride({2})
                   .padding({1}).direction(conv_direction::bwd_data).normalized();
  const kernels::stored_weights_lines l3 = kernels::stored_weights_lines_of(p3);
  EXPECT_EQ(l3.stride, 24);
  EXPECT_EQ(l3.count, 3 * 5 * 7);
  const P p1 = P{}.batch(1).channels(24, 64).input_size({8, 8}).filter_size({1}).stride({2})
                   .direction(conv_direction::bwd_data).normalized();
  const kernels::stored_weights_lines l1 = kernels::stored_weights_lines_of(p1);
  EXPECT_EQ(l1.count, 1);
}

// The offline rule the analytical cost model asks (the kernel builds the TMA maps instead).
TEST(BwdDataStoredWeights, TheCostModelsRuleFollowsTheMapsTmaCanBuild) {
  grouped_conv_key key;
  key.sig.dir = conv_direction::bwd_data;
  key.algo.pipe = pipeline::tma_wgmma;
  key.algo.groups_to_merge = 1;
  const auto reads = [&](P p) {
    return kernels::bwd_data_phases_read_stored_weights(key, p.direction(conv_direction::bwd_data).normalized());
  };
  const P strided = P{}.batch(2).channels(16, 64).input_size({15, 17}).filter_size({3}).stride({2}).padding({1}).dtype(dtype::bf16);
  EXPECT_TRUE(reads(strided));
  EXPECT_TRUE(reads(P{}.batch(1).channels(64, 256).groups(2).input_size({9, 9}).filter_size({3}).stride({2}).dtype(dtype::fp16)));
  EXPECT_FALSE(reads(P{strided}.channels(16, 96))) << "K/G = 96: dY has no im2col map";
  EXPECT_FALSE(reads(P{strided}.channels(12, 64))) << "lines of 12 channels: 24 bytes apart";
  EXPECT_FALSE(reads(P{strided}.dtype(dtype::fp32))) << "16-bit data only";
  EXPECT_TRUE(reads(P{strided}.filter_size({1}).padding({0}))) << "1x1: one line";
  EXPECT_FALSE(reads(P{strided}.channels(12, 64).filter_size({1}).padding({0}))) << "output channels 24 bytes apart";
  grouped_conv_key halo = key;
  halo.sig.spec = conv_specialization::stride1;
  EXPECT_FALSE(kernels::bwd_data_phases_read_stored_weights(halo, P{strided}.direction(conv_direction::bwd_data).normalized()));
  grouped_conv_key merged = key;
  merged.algo.groups_to_merge = 4;
  EXPECT_FALSE(kernels::bwd_data_phases_read_stored_weights(merged, P{strided}.direction(conv_direction::bwd_data).normalized()));
}

}  // namespace
}  // namespace kdecl
