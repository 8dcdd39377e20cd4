// Score modifiers shared by the CUDA attention kernels (mma_sync, tma_wgmma_ws): one
// raw score s = Q[i] . K[j] turned into its logit in the log2 domain,
//   log2(e) * (bias(cap(scale * s)))
// with the soft-cap cap(x) = soft_cap * tanh(x / soft_cap) (Gemma 2; tanh.approx, one
// MUFU instruction, as FlashAttention's kernels take it: tanhf's polynomial and
// division made soft-capped head dim 256 38% slower than the plain kernel), ALiBi
// -slope * |j - (i + offset)| (offset: the mask's diagonal) or an elementwise
// bias tensor read in place (rows `bias_seq` elements apart, read only inside
// the sequence). Masking and the sinks are the kernels' own business.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::kernels::cuda {

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

// tanh on the special-function unit (sm_75+): relative error below 2^-10.9, so a logit capped at
// soft_cap moves by at most soft_cap * 2^-10.9.
__device__ __forceinline__ float fmha_tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

template <class T>
__device__ __forceinline__ float fmha_to_float(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return __half2float(v);
}

// `bias` points at this (batch, head)'s [Sq, Skv] plane (null unless Bias is elementwise).
template <bool SoftCap, fmha_bias Bias, class T>
__device__ __forceinline__ float fmha_logit_log2(float s, const fmha_score_mod& m, const T* bias, int i, int j,
                                                 int offset, int sq, int skv) {
  if constexpr (!SoftCap && Bias == fmha_bias::none) {
    return s * m.scale_log2;
  } else if constexpr (Bias == fmha_bias::none) {
    // scale, cap and log2(e) in two multiplies around the tanh (the products are per launch)
    return fmha_tanh_approx(s * (m.scale * m.inv_soft_cap)) * (m.soft_cap * fmha_log2e);
  } else {
    float x = s * m.scale;
    if constexpr (SoftCap) x = m.soft_cap * fmha_tanh_approx(x * m.inv_soft_cap);
    if constexpr (Bias == fmha_bias::alibi) x -= m.slope * fabsf(float(j - (i + offset)));
    if constexpr (Bias == fmha_bias::elementwise)
      if (i < sq && j < skv) x += fmha_to_float(bias[std::int64_t(i) * m.bias_seq + j]);
    return x * fmha_log2e;
  }
}

// The same with the elementwise bias value read by the caller (the sm_90 kernel loads a key tile's
// bias ahead, two values per 32-bit load).
template <bool SoftCap>
__device__ __forceinline__ float fmha_logit_log2_biased(float s, const fmha_score_mod& m, float bias) {
  float x = s * m.scale;
  if constexpr (SoftCap) x = m.soft_cap * fmha_tanh_approx(x * m.inv_soft_cap);
  return (x + bias) * fmha_log2e;
}

}  // namespace kdecl::kernels::cuda
