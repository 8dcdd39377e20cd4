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

#include "kdecl/conv/grouped_conv_key.hpp"
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

// Whether an sm_90 TMA + wgmma backward-data key's phases read the W of `p` (normalized) as
// stored, given 16-byte aligned pointers: what the analytical cost model asks offline. The
// kernel itself decides per problem and pointers by building the TMA maps (conv_bwd_data_sm90.cuh):
// dY's im2col map (K/G a multiple of 64, the groups' channels adjacent) and W's lines, strides
// between output channels and between groups in 16-byte multiples; keys of one group per GEMM
// without a unit-stride specialization.
inline bool bwd_data_phases_read_stored_weights(const grouped_conv_key& key, const grouped_conv_problem& p) {
  if (key.sig.dir != conv_direction::bwd_data || key.algo.pipe != pipeline::tma_wgmma ||
      key.sig.spec != conv_specialization::none || key.algo.groups_to_merge != 1)
    return false;
  const std::int64_t elem = bits_of(p.wei_type) / 8;
  const auto sixteen = [&](std::int64_t elements) { return elements * elem % 16 == 0; };
  const stored_weights_lines l = stored_weights_lines_of(p);
  return elem == 2 && p.k_per_group() % 64 == 0 && (p.g == 1 || p.out_strides.g == p.k_per_group()) &&
         (l.count == 1 || sixteen(l.stride)) && (p.k_per_group() == 1 || sixteen(p.wei_strides.n)) &&
         (p.g == 1 || sixteen(p.wei_strides.g));
}

}  // namespace kdecl::kernels
