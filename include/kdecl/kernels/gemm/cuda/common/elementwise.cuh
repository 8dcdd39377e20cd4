// The fused epilogue operation: out = ew(alpha*acc + beta*c_old + sum_i d_i).
// One definition for every CUDA GEMM path, so sm_80 and sm_90 kernels agree
// with each other and with the host reference bit for bit in the op itself.
#pragma once

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::cuda {

template <elementwise E>
__device__ __forceinline__ float apply_elementwise(float x) {
  if constexpr (E == elementwise::relu) {
    return x > 0.0f ? x : 0.0f;
  } else if constexpr (E == elementwise::gelu) {
    return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));  // exact (erf) GELU
  } else if constexpr (E == elementwise::sigmoid) {
    return 1.0f / (1.0f + __expf(-x));
  } else if constexpr (E == elementwise::tanh) {
    return tanhf(x);
  } else {  // pass_through, multi_d_add: the D sum is the whole operation
    return x;
  }
}

}  // namespace kdecl::kernels::cuda
