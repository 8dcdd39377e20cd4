// Alignment and offset facts every dispatcher checks the same way.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kdecl/core/enums.hpp"

namespace kdecl::dispatch {

// Bytes per element, at least 1 (sub-byte types count as one byte here).
inline int element_bytes(dtype d) { return bits_of(d) / 8 > 0 ? bits_of(d) / 8 : 1; }

// Largest power of two, at most 16, dividing `bytes` (16 for 0): the widest
// access a stride or address allows.
inline int power_of_two_dividing(std::uint64_t bytes) {
  if (bytes == 0) return 16;
  const std::uint64_t lowest = bytes & (~bytes + 1);
  return int(lowest < 16 ? lowest : 16);
}

// Largest power of two, at most 256, dividing an address (256 for null): the alignment class the
// learned tiers and the remembered choices key on (a selection without pointers assumes 256).
inline int address_alignment(std::uintptr_t bits) {
  if (bits == 0) return 256;
  const std::uintptr_t lowest = bits & (~bits + 1);
  return int(lowest < 256 ? lowest : 256);
}

// Device kernels index within one tensor with 32-bit offsets.
inline constexpr std::int64_t int32_offset_limit = (std::int64_t{1} << 31) - 1;

// Stand-in for the pointers of a selection made before the buffers exist:
// non-null and 256-byte aligned, as cudaMalloc returns. Kernels never
// dereference it in why_not(); they only check presence and alignment.
inline void* stand_in_pointer() { return reinterpret_cast<void*>(std::uintptr_t{256}); }

// "pointer <what> = <ptr> is not aligned to the kernel's <bytes>-byte <access>", or empty.
std::optional<std::string> misaligned_pointer(std::string_view what, const void* ptr, int bytes,
                                              std::string_view access = "access width");

}  // namespace kdecl::dispatch
