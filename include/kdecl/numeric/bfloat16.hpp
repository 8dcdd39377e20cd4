// kdecl::bfloat16 — the upper half of a binary32 (1 sign, 8 exponent, 7 mantissa
// bits), bit-compatible with CUDA's __nv_bfloat16 and HIP's bfloat16.
//
// float -> bfloat16 rounds to nearest even and overflows to infinity, like
// __float2bfloat16_rn; NaN becomes the canonical 0x7FFF. bfloat16 -> float is exact.
#pragma once

#include <bit>
#include <cstdint>

namespace kdecl {

class bfloat16 {
 public:
  bfloat16() = default;
  constexpr explicit bfloat16(float value) : bits_(encode(value)) {}
  constexpr operator float() const { return std::bit_cast<float>(std::uint32_t(bits_) << 16); }

  static constexpr bfloat16 from_bits(std::uint16_t bits) {
    bfloat16 b;
    b.bits_ = bits;
    return b;
  }
  constexpr std::uint16_t bits() const { return bits_; }

 private:
  // Same exponent range as float, so rounding is adding "half an ulp minus one,
  // plus the kept lsb" and truncating; a carry into the exponent (even into
  // infinity) is exactly what round-to-nearest-even wants.
  static constexpr std::uint16_t encode(float value) {
    const std::uint32_t in = std::bit_cast<std::uint32_t>(value);
    if ((in & 0x7FFF'FFFFu) > 0x7F80'0000u) return 0x7FFF;
    const std::uint32_t lsb = (in >> 16) & 1u;
    return std::uint16_t((in + 0x7FFFu + lsb) >> 16);
  }

  std::uint16_t bits_;
};

static_assert(sizeof(bfloat16) == 2);

}  // namespace kdecl
