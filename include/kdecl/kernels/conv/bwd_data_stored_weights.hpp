// Backward-data's stride phases reading the weights as the caller stores them, instead of a
// flipped and transposed copy (flipped_weights_map): a phase's forward convolution needs, for
// forward tap b' and output channel c (the backward problem's input channel), k-blocks of
// w'[c][b'][k] = w[k][f0 + (taps - 1 - b')*step][c]; read with c contiguous, that is W itself
// seen as lines of C/G channels, one line per filter position, k lines' worth apart. The sm_90
// kernel loads such a block with one TMA box per 64 channels (B read N-major by wgmma), so a
// backward-data launch skips the copy kernel and its workspace.
//
//   line of a filter position f (per dimension d) = sum_d f_d * (s_d / line_stride)
//   line of forward tap b' in a phase            = base - sum_d b'_d * step[d]
//
// line_stride is the gcd of W's strides over the dimensions the filter spans (a packed filter:
// C/G), so every tap's first channel lies on a line. Checked against flipped_weights_map::source
// on the host (tests/unit/bwd_data_stored_weights_test.cpp).
#pragma once

#include <cstdint>
#include <numeric>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"

namespace kdecl::kernels {

// W of one group as lines of C/G elements: the elements between lines, and how many lines
// the filter spans (1 for a 1x1 filter, whose stride then says nothing).
struct stored_weights_lines {
  std::int64_t stride = 0;
  std::int64_t count = 1;
};

// A phase's forward taps on those lines.
struct stored_weight_taps {
  int base = 0;
  int step[3]{0, 0, 0};
  constexpr int line_of(const int (&b)[3]) const { return base - b[0] * step[0] - b[1] * step[1] - b[2] * step[2]; }
};

// Of a normalized backward-data problem.
inline stored_weights_lines stored_weights_lines_of(const grouped_conv_problem& p) {
  stored_weights_lines l;
  for (std::size_t d = 0; d < 3; ++d)
    if (p.filter_dims[d] > 1) l.stride = std::gcd(l.stride, p.wei_strides.spatial[d]);
  if (l.stride == 0) return l;
  for (std::size_t d = 0; d < 3; ++d)
    if (p.filter_dims[d] > 1) l.count += (p.filter_dims[d] - 1) * (p.wei_strides.spatial[d] / l.stride);
  return l;
}

// Of one phase's weights map (bwd_data_phases) on the lines of its problem.
constexpr stored_weight_taps stored_weight_taps_of(const flipped_weights_map& m, const stored_weights_lines& l) {
  stored_weight_taps t;
  if (l.stride == 0) return t;  // 1x1: every tap is line 0
  std::int64_t base = 0;
  for (int d = 0; d < 3; ++d) {
    const std::int64_t per_position = m.src_s[d] / l.stride;
    base += (m.first[d] + std::int64_t(m.filter[d] - 1) * m.step[d]) * per_position;
    t.step[d] = m.filter[d] > 1 ? int(m.step[d] * per_position) : 0;
  }
  t.base = int(base);
  return t;
}

}  // namespace kdecl::kernels
