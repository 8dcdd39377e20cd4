// The `preshuffle` variant's B format (docs/kernels/preshuffle.md).
//
// B (k x n, any layout) is cut into blocks of 8 columns x 64 bytes of k
// (32 fp16/bf16, 16 fp32, 64 int8/fp8). A block is 512 bytes: 32 lanes x 16
// bytes, where lane l = 4*g + t (g = column within the block, t = 0..3) holds the
// four 4-byte k words t, t+4, t+8, t+12 of column g, i.e. the mma.sync B fragments
// (b0, b1) of two consecutive 32-byte k steps. Blocks are ordered column block
// major, k block minor, so a warp walking k reads consecutive 512-byte blocks.
// Columns past n and k past the end are zero. The format depends only on
// (k, n, element bits), never on a kernel's tile shape.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels {

struct preshuffle_format {
  static constexpr int block_cols = 8;        // n per block
  static constexpr int block_k_bytes = 64;    // k bytes per block
  static constexpr int block_bytes = 512;     // 32 lanes x 16 bytes
  static constexpr int lane_bytes = 16;
  static constexpr int word_bytes = 4;        // one 32-bit fragment register

  static constexpr std::int64_t n_blocks(std::int64_t n) { return (n + block_cols - 1) / block_cols; }
  static constexpr std::int64_t k_blocks(std::int64_t k, int bits) {
    const std::int64_t per = block_k_bytes * 8 / bits;
    return (k + per - 1) / per;
  }
};

// Elements of one preshuffled B (a batch's stride must be at least this).
constexpr std::int64_t preshuffled_elements(std::int64_t k, std::int64_t n, int bits) {
  return preshuffle_format::n_blocks(n) * preshuffle_format::k_blocks(k, bits) *
         (preshuffle_format::block_bytes * 8 / bits);
}

// Element offset of logical B(kk, j) inside the preshuffled buffer.
constexpr std::int64_t preshuffled_offset(std::int64_t kk, std::int64_t j, std::int64_t k, std::int64_t n,
                                          int bits) {
  (void)n;
  const int eb = bits / 8;
  const std::int64_t k_per_block = preshuffle_format::block_k_bytes / eb;
  const std::int64_t nb = j / preshuffle_format::block_cols, g = j % preshuffle_format::block_cols;
  const std::int64_t kb = kk / k_per_block;
  const std::int64_t byte = (kk % k_per_block) * eb;  // byte within the block's k extent
  const std::int64_t word = byte / preshuffle_format::word_bytes;  // 0..15
  const std::int64_t t = word % 4, slot = word / 4;               // lane's t, register slot 0..3
  const std::int64_t lane = 4 * g + t;
  const std::int64_t block = nb * preshuffle_format::k_blocks(k, bits) + kb;
  const std::int64_t off = block * preshuffle_format::block_bytes + lane * preshuffle_format::lane_bytes +
                           slot * preshuffle_format::word_bytes + byte % preshuffle_format::word_bytes;
  return off / eb;
}

// Host shuffle of one logical B into dst (preshuffled_elements(k, n, bits) elements).
// src: B with layout `lay` (row: B(kk,j) = src[kk*ldb + j]; col: src[j*ldb + kk]);
// bits: 8, 16 or 32. Padding entries are written as zero bytes.
inline void preshuffle_b_host(const void* src, layout lay, std::int64_t ldb, std::int64_t k, std::int64_t n,
                              int bits, void* dst) {
  const int eb = bits / 8;
  const auto* s = static_cast<const unsigned char*>(src);
  auto* d = static_cast<unsigned char*>(dst);
  std::memset(d, 0, std::size_t(preshuffled_elements(k, n, bits)) * eb);
  for (std::int64_t j = 0; j < n; ++j)
    for (std::int64_t kk = 0; kk < k; ++kk) {
      const std::int64_t from = lay == layout::row ? kk * ldb + j : j * ldb + kk;
      std::memcpy(d + preshuffled_offset(kk, j, k, n, bits) * eb, s + from * eb, eb);
    }
}

}  // namespace kdecl::kernels
