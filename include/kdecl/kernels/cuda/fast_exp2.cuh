// 2^x as one MUFU.EX2: the exponential every CUDA kernel here uses (the GEMM's GELU
// epilogue, the attention kernels' online softmax). One definition, so that a
// translation unit including GEMM and attention kernels together sees no ambiguity.
#pragma once

#include <cmath>

#if defined(__CUDACC__)
#define KDECL_FAST_EXP2_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define KDECL_FAST_EXP2_HOST_DEVICE inline  // host-only builds (tests/unit/fast_erf_test.cpp)
#endif

namespace kdecl::kernels::cuda {

// ex2.approx.ftz: relative error ~2^-22 (2 ulp); exp2(-inf) = +0, which the softmax
// relies on for masked scores; results below 2^-126 flush to zero.
KDECL_FAST_EXP2_HOST_DEVICE float exp2_approx(float x) {
#if defined(__CUDA_ARCH__)
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return exp2f(x);
#endif
}

}  // namespace kdecl::kernels::cuda
