// The stride phases of a backward-data convolution, one spatial dimension at a
// time; constexpr so that device code and the host tests run the same arithmetic.
//
// Input position i receives dY[o] through filter tap f when
// o*stride - pad + f*dilation = i. The inputs with (i + pad) mod stride = r (the
// phase r) all see the same taps: those with f*dilation mod stride = r. Both sets
// are arithmetic progressions:
//   i = i0 + a*stride,  a < rows          f = f0 + b*tap_step,  b < taps
// (tap_step = stride / gcd(stride, dilation)), and the dY position they meet is
//   o = (i + pad - f*dilation) / stride = base + a - b*dy_step,
// dy_step = tap_step*dilation / stride (exact). Within a phase the backward-data
// convolution is thus a stride-1 convolution over dY, with no tap that only meets
// zeros. The sm_80 kernel gathers it as it stands (bwd_data_phase.hpp);
// the sm_90 one runs it as a forward convolution with the taps flipped
// (bwd_data_phases.hpp).
#pragma once

namespace kdecl::kernels {

// One dimension of one phase.
struct bwd_data_phase_dim {
  int i0, rows;           // first input position and count (step = stride)
  int f0, taps, tap_step; // first tap, count, step
  int base, dy_step;      // dY position of (a = 0, b = 0), its step per tap
};

constexpr int gcd_of(int a, int b) {
  while (b != 0) {
    const int t = a % b;
    a = b;
    b = t;
  }
  return a;
}

constexpr bwd_data_phase_dim phase_dim(int r, int size, int filter, int stride, int dilation, int pad) {
  bwd_data_phase_dim d{};
  d.i0 = ((r - pad) % stride + stride) % stride;
  d.rows = d.i0 < size ? (size - d.i0 + stride - 1) / stride : 0;
  d.tap_step = stride / gcd_of(stride, dilation);
  d.f0 = -1;
  for (int f = 0; f < filter && f < d.tap_step; ++f)
    if (f * dilation % stride == r) {
      d.f0 = f;
      break;
    }
  d.taps = d.f0 < 0 ? 0 : (filter - d.f0 + d.tap_step - 1) / d.tap_step;
  if (d.f0 < 0) d.f0 = 0;
  d.base = (d.i0 + pad - d.f0 * dilation) / stride;  // exact where taps > 0
  d.dy_step = d.tap_step * dilation / stride;
  return d;
}

}  // namespace kdecl::kernels
