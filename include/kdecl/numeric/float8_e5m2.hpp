// kdecl::float8_e5m2 — E5M2 (1 sign, 5 exponent, 2 mantissa bits, bias 15),
// bit-compatible with CUDA's __nv_fp8_e5m2 (and AMD's bf8, OCP flavour).
//
// IEEE-like: 0x7C is infinity, 0x7D..0x7F are NaN, the largest finite value is
// 57344 (0x7B). float -> e5m2 rounds to nearest even and, like the CUDA
// constructor (__NV_SATFINITE), saturates out-of-range values and infinities to
// +-57344. Every NaN becomes the canonical 0x7F, as in CUDA's conversion.
// e5m2 -> float is exact.
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "kdecl/numeric/float_rounding.hpp"

namespace kdecl {

namespace numeric::detail {

constexpr float decode_e5m2(std::uint8_t b) {
  const std::uint32_t sign = std::uint32_t(b & 0x80u) << 24;
  const std::uint32_t exponent = (b >> 2) & 0x1Fu;
  const std::uint32_t fraction = b & 0x3u;
  if (exponent == 0x1F)  // infinity (fraction 0) or NaN
    return std::bit_cast<float>(sign | 0x7F80'0000u | (fraction << 21));
  if (exponent == 0) {   // zero or subnormal: fraction * 2^-16
    const float magnitude = float(fraction) * 0x1p-16f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (fraction << 21));
}

// Every pattern decoded once: conversion to float is a table load.
inline constexpr std::array<float, 256> e5m2_to_float = [] {
  std::array<float, 256> table{};
  for (int i = 0; i < 256; ++i) table[i] = decode_e5m2(std::uint8_t(i));
  return table;
}();

}  // namespace numeric::detail

class float8_e5m2 {
 public:
  float8_e5m2() = default;
  constexpr explicit float8_e5m2(float value) : bits_(encode(value)) {}
  constexpr operator float() const { return numeric::detail::e5m2_to_float[bits_]; }

  static constexpr float8_e5m2 from_bits(std::uint8_t bits) {
    float8_e5m2 f;
    f.bits_ = bits;
    return f;
  }
  constexpr std::uint8_t bits() const { return bits_; }

  static constexpr float max_finite = 57344.0f;

 private:
  static constexpr std::uint8_t encode(float value) {
    const std::uint32_t in = std::bit_cast<std::uint32_t>(value);
    const std::uint8_t sign = std::uint8_t((in >> 24) & 0x80u);
    if ((in & 0x7FFF'FFFFu) > 0x7F80'0000u) return 0x7F;
    std::uint32_t magnitude = numeric::detail::round_magnitude_rne<5, 2>(value);
    if (magnitude > 0x7Bu) magnitude = 0x7Bu;  // saturate finite, as __NV_SATFINITE
    return std::uint8_t(sign | magnitude);
  }

  std::uint8_t bits_;
};

static_assert(sizeof(float8_e5m2) == 1);

}  // namespace kdecl
