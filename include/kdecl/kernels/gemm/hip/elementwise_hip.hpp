// The elementwise op of the fused epilogue, out = ew(alpha*acc + beta*c_old + sum_i d_i).
// V is the epilogue arithmetic type (float, or double for int8 GEMM).
// GELU is the exact erf form, 0.5 x (1 + erf(x / sqrt 2)), never the tanh approximation.
#pragma once

#include <hip/hip_runtime.h>

#include <type_traits>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::hip {

template <elementwise E, class V>
__device__ inline V apply_elementwise(V x) {
  constexpr bool is_float = std::is_same_v<V, float>;
  if constexpr (E == elementwise::relu) {
    return x > V(0) ? x : V(0);
  } else if constexpr (E == elementwise::gelu) {
    const V scaled = x * V(0.70710678118654752440);
    if constexpr (is_float) return 0.5f * x * (1.0f + erff(scaled));
    else return 0.5 * x * (1.0 + erf(scaled));
  } else if constexpr (E == elementwise::sigmoid) {
    if constexpr (is_float) return 1.0f / (1.0f + expf(-x));
    else return 1.0 / (1.0 + exp(-x));
  } else if constexpr (E == elementwise::tanh) {
    if constexpr (is_float) return tanhf(x);
    else return ::tanh(x);
  } else {  // pass_through, multi_d_add: the D sum is the whole operation
    return x;
  }
}

}  // namespace kdecl::kernels::hip
