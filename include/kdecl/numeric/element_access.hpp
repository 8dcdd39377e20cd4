// Read or write one element of a buffer whose dtype is known only at run time.
// For tests, tools and the reference: a switch per element, never a hot loop.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::numeric {

// Element `index` of `buffer`, widened exactly to double.
inline double load_as_double(const void* buffer, dtype d, std::size_t index) {
  switch (d) {
    case dtype::fp16: return float(static_cast<const half*>(buffer)[index]);
    case dtype::bf16: return float(static_cast<const bfloat16*>(buffer)[index]);
    case dtype::fp32: case dtype::tf32: return static_cast<const float*>(buffer)[index];
    case dtype::fp64: return static_cast<const double*>(buffer)[index];
    case dtype::fp8: return float(static_cast<const float8_e4m3*>(buffer)[index]);
    case dtype::bf8: return float(static_cast<const float8_e5m2*>(buffer)[index]);
    case dtype::int8: return static_cast<const std::int8_t*>(buffer)[index];
    case dtype::int32: return static_cast<const std::int32_t*>(buffer)[index];
    default: break;
  }
  throw std::invalid_argument("load_as_double: no host storage for dtype " + std::string(to_string(d)));
}

// Round-to-nearest-even, saturating conversion of a double to an integer type
// (NaN -> 0): how a GEMM epilogue stores into int8 / int32 C.
template <class Int>
Int saturate_round(double value) {
  if (std::isnan(value)) return 0;
  const double r = std::nearbyint(value);  // default rounding mode: to nearest even
  if (r <= double(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  if (r >= double(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
  return Int(r);
}

// Store `value` into element `index`, rounding to nearest even (floating types
// through float, as the device conversions do; integers saturate).
inline void store_from_double(void* buffer, dtype d, std::size_t index, double value) {
  switch (d) {
    case dtype::fp16: static_cast<half*>(buffer)[index] = half(float(value)); return;
    case dtype::bf16: static_cast<bfloat16*>(buffer)[index] = bfloat16(float(value)); return;
    case dtype::fp32: case dtype::tf32: static_cast<float*>(buffer)[index] = float(value); return;
    case dtype::fp64: static_cast<double*>(buffer)[index] = value; return;
    case dtype::fp8: static_cast<float8_e4m3*>(buffer)[index] = float8_e4m3(float(value)); return;
    case dtype::bf8: static_cast<float8_e5m2*>(buffer)[index] = float8_e5m2(float(value)); return;
    case dtype::int8: static_cast<std::int8_t*>(buffer)[index] = saturate_round<std::int8_t>(value); return;
    case dtype::int32: static_cast<std::int32_t*>(buffer)[index] = saturate_round<std::int32_t>(value); return;
    default: break;
  }
  throw std::invalid_argument("store_from_double: no host storage for dtype " + std::string(to_string(d)));
}

}  // namespace kdecl::numeric
