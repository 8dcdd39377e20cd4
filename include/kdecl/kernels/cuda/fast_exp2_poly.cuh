// 2^x without the special-function unit (FMA and integer pipes only), for kernels that
// keep that unit busy with more than the exponential: the soft-capped attention softmax
// asks it for a tanh and a 2^x per logit. Its own header so that the exponential every
// kernel includes (fast_exp2.cuh) stays as it is.
#pragma once

#include <cmath>

#include "kdecl/kernels/cuda/fast_exp2.cuh"  // KDECL_FAST_EXP2_HOST_DEVICE

namespace kdecl::kernels::cuda {

// x = n + f with n = floor(x), 2^f by a degree-3 minimax polynomial on [0, 1) (relative
// error below 8.6e-5: under half an ulp of the bf16 and fp16 P it feeds), 2^n as
// exponent bits. The floor is an add rounded down onto 1.5 * 2^23, whose low mantissa
// bits then hold n (FlashAttention-4's exp2 emulation does the same). x below -126 gives
// exactly +0 (-inf included: masked scores stay 0); NaN stays NaN.
KDECL_FAST_EXP2_HOST_DEVICE float exp2_poly(float x) {
  constexpr float c1 = 0.6951164603233337f, c2 = 0.22764632105827332f, c3 = 0.07706582546234131f;
  constexpr float shifter = 12582912.0f;  // 1.5 * 2^23
  const float xc = x < -127.0f ? -127.0f : x;  // a select, not fmaxf: NaN passes through
#if defined(__CUDA_ARCH__)
  const float j = __fadd_rd(xc, shifter);  // shifter + floor(xc), exactly
  const int n_shifted = __float_as_int(j) << 23;  // floor(xc) << 23: the shifter's bits fall off
  const float f = xc - (j - shifter);
  const float p = fmaf(fmaf(fmaf(c3, f, c2), f, c1), f, 1.0f);
  // 2^n from its bits; n = -127 gives the bit pattern 0, i.e. +0
  return p * __int_as_float(n_shifted + 0x3f800000);
#else
  const float n = std::floor(xc);
  const float f = xc - n;
  const float p = std::fma(std::fma(std::fma(c3, f, c2), f, c1), f, 1.0f);
  if (n != n) return n;
  return n <= -127.0f ? 0.0f : p * std::ldexp(1.0f, int(n));
#endif
}

}  // namespace kdecl::kernels::cuda
