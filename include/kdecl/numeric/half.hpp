// kdecl::half — IEEE 754 binary16 on the host, bit-compatible with CUDA's __half
// and HIP's _Float16 (1 sign, 5 exponent, 10 mantissa bits).
//
// float -> half rounds to nearest even and overflows to infinity, exactly like
// __float2half_rn; NaN becomes the canonical 0x7FFF, as CUDA's host path does.
// half -> float is exact.
#pragma once

#include <bit>
#include <cstdint>

#include "kdecl/numeric/float_rounding.hpp"

namespace kdecl {

class half {
 public:
  half() = default;
  constexpr explicit half(float value) : bits_(encode(value)) {}
  constexpr operator float() const { return decode(bits_); }

  static constexpr half from_bits(std::uint16_t bits) {
    half h;
    h.bits_ = bits;
    return h;
  }
  constexpr std::uint16_t bits() const { return bits_; }

 private:
  static constexpr std::uint16_t encode(float value) {
    const std::uint32_t in = std::bit_cast<std::uint32_t>(value);
    const std::uint16_t sign = std::uint16_t((in >> 16) & 0x8000u);
    if ((in & 0x7FFF'FFFFu) > 0x7F80'0000u) return 0x7FFF;
    std::uint32_t magnitude = numeric::detail::round_magnitude_rne<5, 10>(value);
    if (magnitude > 0x7BFFu) magnitude = 0x7C00u;  // overflow (and infinity) -> infinity
    return std::uint16_t(sign | magnitude);
  }

  static constexpr float decode(std::uint16_t h) {
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1Fu;
    const std::uint32_t fraction = h & 0x3FFu;
    if (exponent == 0x1F)  // infinity or NaN: keep the payload
      return std::bit_cast<float>(sign | 0x7F80'0000u | (fraction << 13));
    if (exponent == 0) {   // zero or subnormal: fraction * 2^-24, exact in float
      const float magnitude = float(fraction) * 0x1p-24f;
      return sign ? -magnitude : magnitude;
    }
    return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (fraction << 13));
  }

  std::uint16_t bits_;
};

static_assert(sizeof(half) == 2);

}  // namespace kdecl
