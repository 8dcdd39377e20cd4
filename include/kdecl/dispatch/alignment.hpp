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

// Largest power of two, at most `cap` (a power of two), dividing `bits` (`cap` for 0).
inline constexpr std::uint64_t lowest_power_of_two(std::uint64_t bits, std::uint64_t cap) {
  const std::uint64_t lowest = bits & (~bits + 1);
  return bits == 0 || lowest > cap ? cap : lowest;
}

// The widest access, at most 16 bytes, that a stride or address of `bytes` allows.
inline int power_of_two_dividing(std::uint64_t bytes) { return int(lowest_power_of_two(bytes, 16)); }

// An address's alignment, at most 256 (256 for null): the class the learned tiers and the
// remembered choices key on (a selection without pointers assumes cudaMalloc's 256).
inline int address_alignment(std::uintptr_t bits) { return int(lowest_power_of_two(bits, 256)); }

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
