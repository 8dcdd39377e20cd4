// The fused epilogue operation: out = ew(alpha*acc + beta*c_old + sum_i d_i).
// One definition for every CUDA GEMM path, so sm_80 and sm_90 kernels agree
// with each other in the op itself.
#pragma once

#include <cmath>

#include "kdecl/core/enums.hpp"
#include "kdecl/kernels/cuda/fast_exp2.cuh"

#if defined(__CUDACC__)
#define KDECL_EW_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define KDECL_EW_HOST_DEVICE inline  // host-only builds (tests/unit/fast_erf_test.cpp)
#endif

namespace kdecl::kernels::cuda {

// erf(y) to within 2e-7 absolute, far below bf16/fp16 output precision, in 11 SASS
// instructions instead of erff's ~25 (two polynomials merged by selects). Measured max
// |error| over [-10, 10]: 1.6e-7 on the host (tests/unit/fast_erf_test.cpp), 1.8e-7 on
// an H100 with its ex2.approx (GemmSm90.FastErfOnDevice).
// erf(y) = sign(y) * (1 - erfc(|y|)), erfc(a) = 2^P(a) with P a degree-7 polynomial,
// P(0) = 0 (so erf(0) = 0 exactly), fitted to log2(erfc(a)) on [0, 4] by minimax of
// the resulting absolute erf error (weight erfc(a)); alone it is within 8e-8 of erf,
// the rest is float rounding and ex2. |y| > 4 is evaluated at 4 (erfc(4) = 1.5e-8,
// below float resolution at 1). NaN in gives +-(1 - erfc(4)) out; GELU below stays
// NaN through its factor x.
KDECL_EW_HOST_DEVICE float fast_erf(float y) {
  const float a = fminf(fabsf(y), 4.0f);
  float p = 1.002214922e-04f;  // Horner with explicit fma: host and device round alike
  p = fmaf(p, a, -4.615768557e-04f);
  p = fmaf(p, a, -2.302225912e-03f);
  p = fmaf(p, a, 2.945249714e-02f);
  p = fmaf(p, a, -1.489636600e-01f);
  p = fmaf(p, a, -9.183286428e-01f);
  p = fmaf(p, a, -1.627913713e+00f);
  p = p * a;
  return copysignf(1.0f - exp2_approx(p), y);
}

#if defined(__CUDACC__)
template <elementwise E>
__device__ __forceinline__ float apply_elementwise(float x) {
  if constexpr (E == elementwise::relu) {
    return x > 0.0f ? x : 0.0f;
  } else if constexpr (E == elementwise::gelu) {
    const float half_x = 0.5f * x;  // exact (erf) GELU: 0.5x(1 + erf(x/sqrt2)), one fma at the end
    return fmaf(half_x, fast_erf(x * 0.70710678118654752f), half_x);
  } else if constexpr (E == elementwise::sigmoid) {
    return 1.0f / (1.0f + __expf(-x));
  } else if constexpr (E == elementwise::tanh) {
    return tanhf(x);
  } else {  // pass_through, multi_d_add: the D sum is the whole operation
    return x;
  }
}
#endif

}  // namespace kdecl::kernels::cuda

#undef KDECL_EW_HOST_DEVICE
