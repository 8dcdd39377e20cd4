// Score modifiers of the CUDA attention kernels (mma_sync, tma_wgmma_ws): the
// backend-neutral math of kernels/fmha/score_mod.hpp (shared with the HIP kernel)
// with CUDA's tanh and bias reads. The soft-cap's tanh is tanh.approx (one MUFU
// instruction, as FlashAttention's kernels take it: tanhf's polynomial and
// division made soft-capped head dim 256 38% slower than the plain kernel). The
// elementwise bias tensor is read in place (rows `bias_seq` elements apart, read
// only inside the sequence). Masking and the sinks are the kernels' own business.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/kernels/fmha/score_mod.hpp"

namespace kdecl::kernels::cuda {

using kernels::fmha_log2e;
using kernels::fmha_score_mod;

// tanh on the special-function unit (sm_75+): relative error below 2^-10.9, so a logit capped at
// soft_cap moves by at most soft_cap * 2^-10.9.
__device__ __forceinline__ float fmha_tanh_approx(float x) {
  float y;
  asm("tanh.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

struct fmha_tanh_sfu {
  __device__ __forceinline__ float operator()(float x) const { return fmha_tanh_approx(x); }
};

template <class T>
__device__ __forceinline__ float fmha_to_float(T v) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else return __half2float(v);
}

// `bias` points at this (batch, head)'s [Sq, Skv] plane (null unless Bias is elementwise).
template <bool SoftCap, fmha_bias Bias, class T>
__device__ __forceinline__ float fmha_logit_log2(float s, const fmha_score_mod& m, const T* bias, int i, int j,
                                                 int offset, int sq, int skv) {
  float b = 0.0f;
  if constexpr (Bias == fmha_bias::elementwise)
    if (i < sq && j < skv) b = fmha_to_float(bias[std::int64_t(i) * m.bias_seq + j]);
  return kernels::fmha_logit_log2<SoftCap, Bias>(s, m, fmha_tanh_sfu{}, b, i, j, offset);
}

// The same with the elementwise bias value read by the caller (the sm_90 kernel loads a key tile's
// bias ahead, two values per 32-bit load).
template <bool SoftCap>
__device__ __forceinline__ float fmha_logit_log2_biased(float s, const fmha_score_mod& m, float bias) {
  return kernels::fmha_logit_log2<SoftCap, fmha_bias::elementwise>(s, m, fmha_tanh_sfu{}, bias, 0, 0, 0);
}

}  // namespace kdecl::kernels::cuda
