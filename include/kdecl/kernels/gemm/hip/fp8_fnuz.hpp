// OCP fp8 data on CDNA3 (gfx940/941/942) matrix cores.
//
// kdecl's fp8 is OCP E4M3 and bf8 is OCP E5M2. CDNA3's MFMA reads the *FNUZ*
// variants instead: the same bit layout with an exponent bias one larger
// (E4M3: 8 instead of 7; E5M2: 16 instead of 15), no negative zero, no
// infinities, and 0x80 as the only NaN. Every finite OCP pattern except 0x80
// therefore means exactly half its OCP value when read as FNUZ, so
//   * each byte is rewritten on its way from global memory into LDS:
//       0x80 (OCP -0)               -> 0x00 (+0)
//       OCP NaN (E4M3 0x7f/0xff)     -> 0x80 (FNUZ NaN)
//       OCP inf/NaN (E5M2 exponent 31) -> 0x80 (FNUZ NaN; an infinite input gives NaN, not inf)
//       anything else                -> unchanged (value halves);
//   * every product is then a quarter of the true one, which the launcher undoes
//     by multiplying alpha by product_scale (4, a power of two: exact).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::hip {

// True when operands of dtype D must be rewritten from OCP to FNUZ for arch A.
constexpr bool needs_fnuz_rewrite(dtype d, arch_id a) {
  return (d == dtype::fp8 || d == dtype::bf8) && a == arch_id::gfx942;
}

// Factor by which alpha is multiplied so that FNUZ products equal OCP products.
constexpr float product_scale(dtype a, dtype b, arch_id arch) {
  float s = 1.0f;
  if (needs_fnuz_rewrite(a, arch)) s *= 2.0f;
  if (needs_fnuz_rewrite(b, arch)) s *= 2.0f;
  return s;
}

// Rewrites the four OCP bytes packed in w to their FNUZ reading (see above).
template <dtype D>
__host__ __device__ inline std::uint32_t ocp_to_fnuz(std::uint32_t w) {
  static_assert(D == dtype::fp8 || D == dtype::bf8);
  std::uint32_t out = 0;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t b = (w >> (8 * i)) & 0xffu;
    const std::uint32_t magnitude = b & 0x7fu;
    const bool special = D == dtype::fp8 ? magnitude == 0x7fu : magnitude >= 0x7cu;  // NaN (and E5M2 inf)
    const std::uint32_t r = b == 0x80u ? 0u : (special ? 0x80u : b);
    out |= r << (8 * i);
  }
  return out;
}

}  // namespace kdecl::kernels::hip
