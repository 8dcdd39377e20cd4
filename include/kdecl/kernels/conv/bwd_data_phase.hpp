// The stride phases of the backward-data convolution as the implicit-GEMM kernels use
// them (cuda/sm80/conv_bwd_data_sm80.cuh, hip/conv_hip.hpp); constexpr so that the device code and the host
// tests (tests/unit/conv_bwd_plan_test.cpp) run the same arithmetic. Per
// dimension a phase is a stride-1 convolution over dY (kernels/conv/
// bwd_data_phase_dim.hpp: dY position base + a - b*dy_step for input a, tap b).
// Its A operand is therefore exactly the forward im2col operand
// (im2col_index.hpp) of the geometry with dilation -dy_step and padding -base,
// with K/G channels, and no tap that only meets zeros is ever visited.
#pragma once

#include <cstdint>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/bwd_data_phase_dim.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"

namespace kdecl::kernels {

// The whole problem, in the phases' terms (built on the host, phases derived on the device).
struct bwd_data_geometry {
  int n, kg, cg;                      // batch, output channels (the gathered depth), input channels per group
  int in[3], out[3], filter[3];       // dX and dY sizes, filter (D, H, W)
  int stride[3], dilation[3], pad[3];
  std::int64_t dy_n, dy_s[3];         // dY element strides: image, D, H, W
  std::int64_t dx_n, dx_s[3];         // dX element strides
  std::int64_t wei_k, wei_s[3];       // weight strides: output channel, Z, Y, X
  int phases;                         // stride[0] * stride[1] * stride[2]
};

// Phase `phase` (0 .. phases-1, the W residue fastest).
struct bwd_data_phase {
  bwd_data_phase_dim dim[3];
  conv_gather_geometry gather;  // the forward gather over dY that is this phase's A operand
};

constexpr bwd_data_phase phase_of(const bwd_data_geometry& g, int phase) {
  bwd_data_phase ph{};
  const int r[3] = {phase / (g.stride[1] * g.stride[2]), phase / g.stride[2] % g.stride[1], phase % g.stride[2]};
  int rows = 1, taps = 1;
  for (int d = 0; d < 3; ++d) {
    ph.dim[d] = phase_dim(r[d], g.in[d], g.filter[d], g.stride[d], g.dilation[d], g.pad[d]);
    rows *= ph.dim[d].rows;
    taps *= ph.dim[d].taps;
  }
  conv_gather_geometry& s = ph.gather;
  s.m = g.n * rows;
  s.k = g.kg * taps;
  s.cg = g.kg;
  for (int d = 0; d < 3; ++d) {
    s.out[d] = ph.dim[d].rows;
    s.in[d] = g.out[d];
    s.filter[d] = ph.dim[d].taps;
    s.stride[d] = 1;
    s.dilation[d] = -ph.dim[d].dy_step;
    s.pad[d] = -ph.dim[d].base;
    s.in_s[d] = g.dy_s[d];
  }
  s.in_n = g.dy_n;
  return ph;
}

// Element offset of dX row m of a phase (within the group): (n, a0, a1, a2) -> (n, i).
constexpr std::int64_t phase_row_offset(const bwd_data_geometry& g, const bwd_data_phase& ph, int m) {
  const int e1 = ph.dim[1].rows, e2 = ph.dim[2].rows;
  const int pixels = ph.dim[0].rows * e1 * e2;
  const int n = m / pixels, p = m % pixels;
  const int a[3] = {p / (e1 * e2), p / e2 % e1, p % e2};
  std::int64_t at = std::int64_t(n) * g.dx_n;
  for (int d = 0; d < 3; ++d) at += std::int64_t(ph.dim[d].i0 + a[d] * g.stride[d]) * g.dx_s[d];
  return at;
}

// Element offset of the weight row of depth kk = (phase tap t, output channel k), k fastest.
constexpr std::int64_t phase_weight_offset(const bwd_data_geometry& g, const bwd_data_phase& ph, int kk) {
  const int t = kk / g.kg, k = kk - t * g.kg;
  const int e1 = ph.dim[1].taps, e2 = ph.dim[2].taps;
  const int b[3] = {t / (e1 * e2), t / e2 % e1, t % e2};
  std::int64_t at = std::int64_t(k) * g.wei_k;
  for (int d = 0; d < 3; ++d) at += std::int64_t(ph.dim[d].f0 + b[d] * ph.dim[d].tap_step) * g.wei_s[d];
  return at;
}

// Of a normalized bwd_data problem whose sizes fit in int (the kernel's why_not checks).
inline bwd_data_geometry bwd_data_geometry_of(const grouped_conv_problem& p) {
  bwd_data_geometry g{};
  const auto out = p.output_dims();
  g.n = int(p.n);
  g.kg = int(p.k_per_group());
  g.cg = int(p.c_per_group());
  g.phases = 1;
  for (int d = 0; d < 3; ++d) {
    const auto s = std::size_t(d);
    g.in[d] = int(p.input_dims[d]);
    g.out[d] = int(out[s]);
    g.filter[d] = int(p.filter_dims[d]);
    g.stride[d] = int(p.stride_dims[d]);
    g.dilation[d] = int(p.dilation_dims[d]);
    g.pad[d] = int(p.pad_left_dims[d]);
    g.dy_s[d] = p.out_strides.spatial[s];
    g.dx_s[d] = p.in_strides.spatial[s];
    g.wei_s[d] = p.wei_strides.spatial[s];
    g.phases *= g.stride[d];
  }
  g.dy_n = p.out_strides.n;
  g.dx_n = p.in_strides.n;
  g.wei_k = p.wei_strides.n;
  return g;
}

}  // namespace kdecl::kernels
