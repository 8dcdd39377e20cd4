// Shared-memory matrix descriptors for wgmma, for tiles written by TMA with the
// 128-byte swizzle (rows of 128 bytes, swizzled in 8-row / 1024-byte atoms).
//
// K-major operand (row-major A, column-major B): one smem row per M/N index,
// 64 16-bit K values per row. Consecutive 8-row groups are 1024 bytes apart
// (stride byte offset); the leading byte offset is unused. Stepping K by 16
// elements moves the start address by 32 bytes inside the swizzled row.
//
// MN-major operand (column-major A, row-major B): one smem row per K index,
// 64 M/N values per row, one 64-wide block per TMA box of 64 K-rows (8 KiB).
// 8-row K groups are 1024 bytes apart (stride byte offset); consecutive 64-wide
// M/N blocks are one box apart (leading byte offset). Stepping K by 16 moves the
// start by 16 rows = 2048 bytes.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm90 {

inline constexpr std::uint32_t swizzle_atom_bytes = 1024;  // 8 rows x 128 bytes
inline constexpr std::uint32_t mn_block_bytes = 64 * 128;  // one 64x64 16-bit TMA box

// Fields: start address >> 4 in bits 0-13, leading byte offset >> 4 in 16-29,
// stride byte offset >> 4 in 32-45, layout type in 62-63 (1 = 128-byte swizzle).
__device__ __forceinline__ std::uint64_t make_wgmma_descriptor(std::uint32_t smem_addr,
                                                               std::uint32_t leading_bytes,
                                                               std::uint32_t stride_bytes) {
  std::uint64_t desc = 0;
  desc |= static_cast<std::uint64_t>((smem_addr & 0x3FFFF) >> 4);
  desc |= static_cast<std::uint64_t>((leading_bytes & 0x3FFFF) >> 4) << 16;
  desc |= static_cast<std::uint64_t>((stride_bytes & 0x3FFFF) >> 4) << 32;
  desc |= std::uint64_t{1} << 62;
  return desc;
}

// Moves a descriptor's start address by `bytes` (a multiple of 16; smem < 256 KiB, so no carry out).
__device__ __forceinline__ std::uint64_t advance_descriptor(std::uint64_t desc, std::uint32_t bytes) {
  return desc + (bytes >> 4);
}

}  // namespace kdecl::kernels::cuda::sm90
