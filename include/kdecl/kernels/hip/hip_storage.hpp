// dtype -> HIP storage type, and the conversions the GEMM epilogue needs.
//
// Storage types are what one element is in memory. bf16, fp8 and bf8 are kept
// as raw bit patterns (std::uint16_t / std::uint8_t): the main loop never
// converts them (MFMA consumes the bits), and the epilogue converts bf16 by hand
// so that rounding is round-to-nearest-even on every target.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <limits>
#include <type_traits>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::hip {

template <dtype D> struct storage;
template <> struct storage<dtype::fp16> { using type = _Float16; };
template <> struct storage<dtype::bf16> { using type = std::uint16_t; };  // bf16 bits
template <> struct storage<dtype::fp32> { using type = float; };
template <> struct storage<dtype::fp8> { using type = std::uint8_t; };    // OCP E4M3 bits
template <> struct storage<dtype::bf8> { using type = std::uint8_t; };    // OCP E5M2 bits
template <> struct storage<dtype::int8> { using type = std::int8_t; };
template <> struct storage<dtype::int32> { using type = std::int32_t; };

template <dtype D> using storage_t = typename storage<D>::type;

// Type of one accumulator element: int32 for int8 GEMM, fp32 otherwise.
template <dtype Acc> using accumulator_t = std::conditional_t<Acc == dtype::int32, std::int32_t, float>;

// Arithmetic type of the epilogue. fp32 for float accumulators (as the library
// semantics require). For int32 accumulators it is double: alpha * acc must stay
// exact beyond 2^24, which fp32 cannot promise and the int8 tests demand.
template <dtype Acc> using epilogue_t = std::conditional_t<Acc == dtype::int32, double, float>;

__device__ inline float bf16_bits_to_float(std::uint16_t bits) {
  return __builtin_bit_cast(float, static_cast<std::uint32_t>(bits) << 16);
}

__device__ inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t u = __builtin_bit_cast(std::uint32_t, f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((u >> 16) | 0x0040u);  // keep NaN quiet
  u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest, ties to even
  return static_cast<std::uint16_t>(u >> 16);
}

// Round to nearest (ties to even) and saturate; NaN becomes 0.
template <class Int>
__device__ inline Int saturate_round(double v) {
  constexpr double lo = static_cast<double>(std::numeric_limits<Int>::min());
  constexpr double hi = static_cast<double>(std::numeric_limits<Int>::max());
  if (!(v == v)) return Int{0};
  v = __builtin_rint(v);
  return static_cast<Int>(v < lo ? lo : (v > hi ? hi : v));
}

// Element of dtype D (as stored) -> epilogue arithmetic type V.
template <dtype D, class V>
__device__ inline V to_epilogue(storage_t<D> x) {
  if constexpr (D == dtype::bf16) return static_cast<V>(bf16_bits_to_float(x));
  else return static_cast<V>(x);
}

// Epilogue value -> element of dtype D.
template <dtype D, class V>
__device__ inline storage_t<D> from_epilogue(V v) {
  if constexpr (D == dtype::fp16) return static_cast<_Float16>(static_cast<float>(v));
  else if constexpr (D == dtype::bf16) return float_to_bf16_bits(static_cast<float>(v));
  else if constexpr (D == dtype::fp32) return static_cast<float>(v);
  else if constexpr (D == dtype::int32 || D == dtype::int8) return saturate_round<storage_t<D>>(static_cast<double>(v));
  else static_assert(D == dtype::fp16, "hip gemm: no epilogue conversion to this C dtype");
}

}  // namespace kdecl::kernels::hip
