// round_to_tf32: the value a tensor core multiplies when it is fed an fp32
// number in tf32 mode (1 sign, 8 exponent, 10 mantissa bits).
//
// round_to_tf32 models the explicit conversion kernels perform before the MMA
// (cvt.rna.tf32.f32, CUTLASS's default): round to nearest, ties away from
// zero, result kept in a float whose low 13 mantissa bits are zero.
// truncate_to_tf32 models a tensor core reading fp32 bits straight from shared
// memory (wgmma's tf32 operands loaded by TMA): the low 13 bits are ignored.
// Infinity and NaN pass through unchanged.
#pragma once

#include <bit>
#include <cstdint>

namespace kdecl {

constexpr float round_to_tf32(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7F80'0000u) == 0x7F80'0000u) return value;  // inf / NaN
  // Adding half of the dropped ulp then truncating rounds ties away from zero;
  // a carry into the exponent is the correct rounding (up to infinity).
  return std::bit_cast<float>((bits + 0x1000u) & 0xFFFF'E000u);
}

constexpr float truncate_to_tf32(float value) {
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7F80'0000u) == 0x7F80'0000u) return value;  // inf / NaN
  return std::bit_cast<float>(bits & 0xFFFF'E000u);
}

}  // namespace kdecl
