// The shared-memory layout of one operand tile: rows of RowBytes bytes, stored
// with the 16-byte chunks of every 128-byte line XOR-permuted by the line index.
//
// Why: ldmatrix reads 8 rows of 16 bytes at the same column; without the
// permutation those 8 chunks would sit in the same 4 banks whenever the row
// width is a multiple of 128 bytes (8-way conflict). XOR-ing the chunk index
// (bits 4-6 of the byte offset) with the 128-byte line index (bits 7-9) puts the
// 8 chunks of 8 consecutive rows into 8 different bank groups for any row width
// of 16, 32, 64 or k*128 bytes, for the non-transposed and the transposed
// (ldmatrix.trans) reads alike. cp.async writes whole 16-byte chunks (or parts of
// one), which the permutation keeps contiguous, so the stores stay conflict-free too.
#pragma once

#include <cstdint>

namespace kdecl::kernels::cuda::sm80 {

template <int Rows, int RowBytes>
struct swizzled_tile {
  static constexpr int rows = Rows;
  static constexpr int row_bytes = RowBytes;
  static constexpr int bytes = Rows * RowBytes;
  static_assert(bytes % 128 == 0, "a swizzled tile spans whole 128-byte lines");

  // Byte offset of (row, byte within the row) inside the tile.
  __host__ __device__ static constexpr std::uint32_t offset(std::uint32_t row, std::uint32_t byte) {
    const std::uint32_t linear = row * RowBytes + byte;
    return linear ^ (((linear >> 7) & 7u) << 4);
  }
};

}  // namespace kdecl::kernels::cuda::sm80
