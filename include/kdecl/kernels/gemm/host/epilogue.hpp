// The host epilogue: out = ew(alpha*acc + beta*c_old + sum_i d_i), in fp32
// (double for fp64 GEMMs), then a round-to-nearest-even conversion to C's
// dtype (saturating for integers). Same formulas as the CUDA epilogue.
#pragma once

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "kdecl/core/enums.hpp"
#include "kdecl/numeric/element_access.hpp"

namespace kdecl::kernels::host {

template <class Real>
inline Real apply_elementwise(elementwise op, Real x) {
  switch (op) {
    case elementwise::relu: return x > Real(0) ? x : Real(0);
    case elementwise::gelu:  // exact GELU: 0.5 x (1 + erf(x / sqrt 2))
      return Real(0.5) * x * (Real(1) + std::erf(x * Real(0.70710678118654752440)));
    case elementwise::sigmoid: return Real(1) / (Real(1) + std::exp(-x));
    case elementwise::tanh: return std::tanh(x);
    case elementwise::pass_through:
    case elementwise::multi_d_add:  // the D sum is the whole operation
      return x;
  }
  return x;
}

// A stored C or D element in the epilogue's arithmetic type.
template <class Real, class Storage>
inline Real load_real(Storage v) {
  if constexpr (std::is_integral_v<Storage> || std::is_same_v<Storage, double>) return Real(v);
  else return Real(float(v));  // half, bfloat16, fp8 convert through float
}

// The epilogue value stored as C's type.
template <class Storage, class Real>
inline Storage store_as(Real x) {
  if constexpr (std::is_integral_v<Storage>) return numeric::saturate_round<Storage>(double(x));
  else if constexpr (std::is_same_v<Storage, double>) return double(x);
  else return Storage(float(x));
}

}  // namespace kdecl::kernels::host
