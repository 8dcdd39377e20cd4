// Which arithmetic type the host GEMM multiplies in, and how a stored element
// becomes it.
//
// 16-bit, fp8 and fp32 data are multiplied and accumulated in float (fp32
// accumulator), fp64 in double, int8 in int32. tf32 compute rounds each fp32
// input to tf32 first, modelling what a tensor core sees.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/numeric/tf32.hpp"

namespace kdecl::kernels::host {

constexpr bool is_float_data(dtype d) {
  return d == dtype::fp16 || d == dtype::bf16 || d == dtype::fp32 || d == dtype::fp8 || d == dtype::bf8;
}

// nullptr when the host GEMM implements signature `s`, otherwise why not.
constexpr const char* unsupported_signature_reason(const gemm_signature& s) {
  if (is_float_data(s.a) && is_float_data(s.b)) {
    if (s.acc != dtype::fp32) return "host GEMM accumulates floating-point data in fp32 only";
    const bool tf32_ok = s.a == dtype::fp32 && s.b == dtype::fp32 && s.compute == dtype::tf32;
    if (s.compute != s.a && !tf32_ok)
      return "compute dtype must equal A's dtype (or be tf32 for fp32 data)";
    if (!is_float_data(s.c)) return "C of a floating-point GEMM must be fp16, bf16, fp32, fp8 or bf8";
    return nullptr;
  }
  if (s.a == dtype::fp64 || s.b == dtype::fp64) {
    if (s.a != s.b || s.c != dtype::fp64 || s.acc != dtype::fp64 || s.compute != dtype::fp64)
      return "fp64 GEMM needs A, B, C, accumulator and compute all fp64";
    return nullptr;
  }
  if (s.a == dtype::int8 || s.b == dtype::int8) {
    if (s.a != s.b || s.acc != dtype::int32 || s.compute != dtype::int8)
      return "int8 GEMM needs int8 A and B, int8 compute and an int32 accumulator";
    if (s.c != dtype::int32 && s.c != dtype::int8) return "C of an int8 GEMM must be int32 or int8";
    return nullptr;
  }
  return "host GEMM has no implementation for these A/B dtypes (int4, pk_fp4, int32, tf32 data)";
}

// The multiply/accumulate type for a supported signature.
template <gemm_signature S>
using compute_t = std::conditional_t<S.acc == dtype::fp64, double,
                                     std::conditional_t<S.acc == dtype::int32, std::int32_t, float>>;

// The epilogue's arithmetic: fp32, except double for fp64 GEMMs.
template <class Compute>
using epilogue_math_t = std::conditional_t<std::is_same_v<Compute, double>, double, float>;

// A stored element as the compute type.
template <class Compute, bool RoundToTf32, class Storage>
inline Compute to_compute(Storage v) {
  if constexpr (std::is_same_v<Compute, float>) {
    const float f = float(v);
    if constexpr (RoundToTf32) return round_to_tf32(f);
    else return f;
  } else {
    return Compute(v);
  }
}

}  // namespace kdecl::kernels::host
