// Round-to-nearest-even from binary32 to a narrower binary floating-point
// format with E exponent bits and M mantissa bits (binary16, bfloat16, the
// two fp8 formats). One routine so all four types round identically.
//
// It returns the *magnitude* encoding (no sign bit) as if the format had an
// unbounded exponent range above: a value past the largest finite number
// yields an encoding above it, and each type then applies its own overflow
// rule (to infinity, or saturate). NaN is the caller's business too, since
// every format spells it differently.
#pragma once

#include <bit>
#include <cstdint>

namespace kdecl::numeric::detail {

template <int ExponentBits, int MantissaBits>
constexpr std::uint32_t round_magnitude_rne(float value) {
  static_assert(MantissaBits >= 1 && MantissaBits < 23);
  constexpr int bias = (1 << (ExponentBits - 1)) - 1;
  constexpr int min_normal_exponent = 1 - bias;

  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value) & 0x7FFF'FFFFu;
  const std::uint32_t biased = bits >> 23;
  const std::uint32_t fraction = bits & 0x7F'FFFFu;
  if (biased == 0 && fraction == 0) return 0;

  // value = significand * 2^(exponent - 23), with the implicit bit for normals.
  const int exponent = biased == 0 ? -126 : int(biased) - 127;
  const std::uint64_t significand = biased == 0 ? fraction : (fraction | 0x80'0000u);

  // Below the target's normal range the target loses extra bits (subnormals).
  const int target_exponent = exponent < min_normal_exponent ? min_normal_exponent : exponent;
  int shift = (23 - MantissaBits) + (target_exponent - exponent);
  if (shift > 40) shift = 40;  // everything is rounded off; keeps the shifts defined

  std::uint64_t kept = significand >> shift;
  const std::uint64_t dropped = significand & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t halfway = std::uint64_t{1} << (shift - 1);
  if (dropped > halfway || (dropped == halfway && (kept & 1))) ++kept;

  // `kept` still carries the implicit bit at position M for normals, so adding it
  // to (biased exponent - 1) << M both sets the fraction and lets a rounding carry
  // bump the exponent. For subnormals the exponent field is 0 and kept is the fraction.
  const std::uint64_t exponent_field = std::uint64_t(target_exponent + bias - 1);
  return std::uint32_t((exponent_field << MantissaBits) + kept);
}

}  // namespace kdecl::numeric::detail
