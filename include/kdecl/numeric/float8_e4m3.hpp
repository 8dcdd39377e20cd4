// kdecl::float8_e4m3 — OCP E4M3 (1 sign, 4 exponent, 3 mantissa bits, bias 7),
// bit-compatible with CUDA's __nv_fp8_e4m3 and AMD's fp8 (OCP flavour).
//
// Finite-only: there is no infinity, the largest magnitude is 448 (0x7E) and
// 0x7F / 0xFF are NaN. float -> e4m3 rounds to nearest even and saturates
// (out-of-range values and infinities become +-448), matching the CUDA
// constructor, which uses __NV_SATFINITE. Every NaN becomes the canonical 0x7F,
// as in CUDA's conversion. e4m3 -> float is exact (0x7F and 0xFF read as NaN).
#pragma once

#include <array>
#include <bit>
#include <cstdint>

#include "kdecl/numeric/float_rounding.hpp"

namespace kdecl {

namespace numeric::detail {

constexpr float decode_e4m3(std::uint8_t b) {
  const std::uint32_t sign = std::uint32_t(b & 0x80u) << 24;
  const std::uint32_t exponent = (b >> 3) & 0xFu;
  const std::uint32_t fraction = b & 0x7u;
  if ((b & 0x7Fu) == 0x7Fu) return std::bit_cast<float>(sign | 0x7FC0'0000u);  // NaN
  if (exponent == 0) {  // zero or subnormal: fraction * 2^-9
    const float magnitude = float(fraction) * 0x1p-9f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + 120) << 23) | (fraction << 20));
}

// Every pattern decoded once: conversion to float is a table load.
inline constexpr std::array<float, 256> e4m3_to_float = [] {
  std::array<float, 256> table{};
  for (int i = 0; i < 256; ++i) table[i] = decode_e4m3(std::uint8_t(i));
  return table;
}();

}  // namespace numeric::detail

class float8_e4m3 {
 public:
  float8_e4m3() = default;
  constexpr explicit float8_e4m3(float value) : bits_(encode(value)) {}
  constexpr operator float() const { return numeric::detail::e4m3_to_float[bits_]; }

  static constexpr float8_e4m3 from_bits(std::uint8_t bits) {
    float8_e4m3 f;
    f.bits_ = bits;
    return f;
  }
  constexpr std::uint8_t bits() const { return bits_; }

  static constexpr float max_finite = 448.0f;

 private:
  static constexpr std::uint8_t encode(float value) {
    const std::uint32_t in = std::bit_cast<std::uint32_t>(value);
    const std::uint8_t sign = std::uint8_t((in >> 24) & 0x80u);
    if ((in & 0x7FFF'FFFFu) > 0x7F80'0000u) return 0x7F;
    std::uint32_t magnitude = numeric::detail::round_magnitude_rne<4, 3>(value);
    if (magnitude > 0x7Eu) magnitude = 0x7Eu;  // saturate; 0x7F would be NaN
    return std::uint8_t(sign | magnitude);
  }

  std::uint8_t bits_;
};

static_assert(sizeof(float8_e4m3) == 1);

}  // namespace kdecl
