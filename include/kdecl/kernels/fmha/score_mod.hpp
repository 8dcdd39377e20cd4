// Score modifiers shared by the attention kernels of every backend (CUDA's
// mma_sync and tma_wgmma_ws through cuda/score_mod.cuh, HIP's qr): one raw score
// s = Q[i] . K[j] turned into its logit in the log2 domain,
//   log2(e) * (bias(cap(scale * s)))
// with the soft-cap cap(x) = soft_cap * tanh(x / soft_cap) (Gemma 2), ALiBi
// -slope * |j - (i + offset)| (offset: the mask's diagonal) or an elementwise bias
// value the caller read. The backend brings its tanh (CUDA: tanh.approx, one
// special-function instruction; HIP: tanhf). Masking and the sinks are the
// kernels' own business. Plain constexpr (device code calls it: clang treats
// constexpr functions as host and device, nvcc with --expt-relaxed-constexpr).
#pragma once

#include <cstdint>

#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::kernels {

inline constexpr float fmha_log2e = 1.4426950408889634f;

// The per-launch values the modifiers read.
struct fmha_score_mod {
  float scale;         // softmax scale
  float scale_log2;    // scale * log2(e): the whole transformation when nothing else is on
  float soft_cap;      // 0: off
  float inv_soft_cap;
  float slope;         // ALiBi slope of this (batch, head)
  std::int64_t bias_seq;  // elementwise bias: elements between rows
};

// The soft-cap alone makes the logit a positive multiple of a tanh:
//   log2(e) * cap(scale * s) = fmha_capped_log2_scale(m) * fmha_capped_tanh(s, m, tanh),
// so a kernel may take row maxima on the tanh and fold the multiple into its exponent (sm_90).
template <class Tanh>
constexpr float fmha_capped_tanh(float s, const fmha_score_mod& m, Tanh tanh) {
  return tanh(s * (m.scale * m.inv_soft_cap));  // the product is per launch
}
constexpr float fmha_capped_log2_scale(const fmha_score_mod& m) { return m.soft_cap * fmha_log2e; }

// `bias` is the elementwise bias at (i, j) (ignored unless Bias is elementwise).
template <bool SoftCap, fmha_bias Bias, class Tanh>
constexpr float fmha_logit_log2(float s, const fmha_score_mod& m, Tanh tanh, float bias, int i, int j, int offset) {
  if constexpr (!SoftCap && Bias == fmha_bias::none) {
    return s * m.scale_log2;
  } else if constexpr (Bias == fmha_bias::none) {
    // scale, cap and log2(e) in two multiplies around the tanh (the products are per launch)
    return fmha_capped_tanh(s, m, tanh) * fmha_capped_log2_scale(m);
  } else {
    float x = s * m.scale;
    if constexpr (SoftCap) x = m.soft_cap * tanh(x * m.inv_soft_cap);
    if constexpr (Bias == fmha_bias::alibi) {
      const float d = float(j - (i + offset));
      x -= m.slope * (d < 0.0f ? -d : d);
    }
    if constexpr (Bias == fmha_bias::elementwise) x += bias;
    return x * fmha_log2e;
  }
}

}  // namespace kdecl::kernels
