// A backward-data convolution of any stride as forward convolutions, one per
// stride phase (bwd_data_phase_dim.hpp), so that a forward kernel runs it with no
// work on the zeros a strided layer's dY would be padded with:
//
//   phase r (per dimension): the dx pixels i = i0 + a*stride (a < rows) and the taps
//   f = f0 + b*tap_step (b < taps) that reach them, meeting dY at base + a - b*dy_step.
//   With the taps flipped (b' = taps - 1 - b) that is the forward stride-1 convolution
//     dx[a] = sum_{b', k} dy[a - pad + b'*dy_step][k] * w'[c][b'][k],
//     pad = (taps - 1)*dy_step - base,  w'[c][b'][k] = w[k][f0 + (taps - 1 - b')*tap_step][c],
//   whose input is dY, whose weights are the phase's taps flipped and transposed
//   (flipped_weights_map) and whose output pixels are dx's pixels of the phase:
//   dx + i0 . strides, each stride times the layer's stride.
//
// dY is cropped to the positions a phase reads, so the forward problem's padding is
// never negative. A phase no tap reaches (a 1x1 filter of stride 2: three phases in
// four) has no forward problem: its pixels of dx are zero. Stride 1 is one phase, the
// problem of bwd_data_as_forward.hpp. Checked against the definition on the host
// (tests/unit/bwd_data_as_forward_test.cpp); run by the sm_90 kernel
// (cuda/sm90/conv_bwd_data_sm90.cuh).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/kernels/conv/bwd_data_phase_dim.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"

namespace kdecl::kernels {

struct bwd_data_phase_problem {
  bool zero = false;            // no tap reaches these pixels: dx is zero there
  std::int64_t dx_offset = 0;   // elements from dx to the phase's first pixel
  pixel_row_map pixels{};       // the phase's dx pixels from there (N x extents)
  std::int64_t rows = 0;        // N x pixels of the phase
  // Where !zero:
  std::int64_t dy_offset = 0;   // elements from dy to the forward problem's input
  grouped_conv_problem forward; // input dY (cropped), weights w' (packed), output the phase's dx pixels
  flipped_weights_map weights;  // w -> w'
};

// The phases of a normalized backward-data problem with at least one dx pixel in
// them (W's residue fastest).
inline std::vector<bwd_data_phase_problem> bwd_data_phases(const grouped_conv_problem& p) {
  std::vector<bwd_data_phase_problem> phases;
  const auto dy = p.output_dims();
  const int s0 = int(p.stride_dims[0]), s1 = int(p.stride_dims[1]), s2 = int(p.stride_dims[2]);
  for (int phase = 0; phase < s0 * s1 * s2; ++phase) {
    const int r[3] = {phase / (s1 * s2), phase / s2 % s1, phase % s2};
    bwd_data_phase_problem ph;
    grouped_conv_problem f = p;
    f.dir = conv_direction::fwd;
    f.c = p.k;
    f.k = p.c;
    f.in_type = p.out_type;
    f.out_type = p.in_type;
    f.in_strides = p.out_strides;
    f.out_strides = p.in_strides;
    f.wei_strides = {};  // packed by normalized()
    flipped_weights_map& m = ph.weights;
    bool empty = false;
    ph.rows = p.n;
    for (int slot = 0; slot < 3; ++slot) {
      const auto s = std::size_t(slot);
      const bwd_data_phase_dim d =
          phase_dim(r[slot], int(p.input_dims[slot]), int(p.filter_dims[slot]), int(p.stride_dims[slot]),
                    int(p.dilation_dims[slot]), int(p.pad_left_dims[slot]));
      ph.dx_offset += std::int64_t(d.i0) * p.in_strides.spatial[s];
      ph.pixels.extent[slot] = d.rows;
      ph.pixels.spatial[slot] = p.in_strides.spatial[s] * p.stride_dims[slot];
      f.out_strides.spatial[s] = ph.pixels.spatial[slot];
      ph.rows *= d.rows;
      empty = empty || d.rows == 0;
      ph.zero = ph.zero || d.taps == 0;
      if (d.taps == 0 || d.rows == 0) continue;
      // Forward output a reads dY at a - pad + b'*dilation: positions [lo, hi] over every a and b'.
      const std::int64_t dilation = d.taps > 1 ? d.dy_step : 1;
      const std::int64_t pad = std::int64_t(d.taps - 1) * d.dy_step - d.base;
      const std::int64_t lo = std::max<std::int64_t>(0, -pad);
      const std::int64_t hi = std::min<std::int64_t>(dy[s] - 1, d.rows - 1 - pad + (d.taps - 1) * dilation);
      ph.zero = ph.zero || lo > hi;  // every tap falls outside dY
      if (lo > hi) continue;
      ph.dy_offset += lo * p.out_strides.spatial[s];
      f.input_dims.v[s] = hi - lo + 1;
      f.filter_dims.v[s] = d.taps;
      f.stride_dims.v[s] = 1;
      f.dilation_dims.v[s] = dilation;
      f.pad_left_dims.v[s] = pad + lo;
      f.pad_right_dims.v[s] = d.rows - 1 + (d.taps - 1) * dilation - (pad + lo) - (hi - lo);
      m.filter[slot] = d.taps;
      m.first[slot] = d.f0;
      m.step[slot] = d.tap_step;
    }
    if (empty) continue;
    ph.pixels.image = p.in_strides.n;
    if (ph.zero) {
      ph.forward = {};
      ph.weights = {};
    } else {
      ph.forward = f.normalized();
      m.src_g = p.wei_strides.g;
      m.src_k = p.wei_strides.n;
      m.dst_g = ph.forward.wei_strides.g;
      m.dst_c = ph.forward.wei_strides.n;
      for (int slot = 0; slot < 3; ++slot) {
        m.src_s[slot] = p.wei_strides.spatial[std::size_t(slot)];
        m.dst_s[slot] = ph.forward.wei_strides.spatial[std::size_t(slot)];
      }
      m.groups = int(p.g);
      m.kg = int(p.k_per_group());
      m.cg = int(p.c_per_group());
      m.taps = int(ph.forward.filter_taps());
    }
    phases.push_back(ph);
  }
  return phases;
}

}  // namespace kdecl::kernels
