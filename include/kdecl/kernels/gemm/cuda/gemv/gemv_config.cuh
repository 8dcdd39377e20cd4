// What the gemv kernels derive from their gemm_key, and the rules on the keys they build (the
// arch tables' gemv entry, arch/include/kdecl/arch/nvidia.hpp, offers no more).
//
// The key's fields, read for a streaming kernel:
//   warp_tile    the arithmetic, and what one chunk index of a warp covers:
//                (1, 1, 256)  CUDA cores (gemv.cuh): 32 lanes x 8 values of K of every row and column
//                (16, 8, 32)  mma.sync m16n8k16 (gemv_mma.cuh): lane (g, t) = (lane / 4, lane % 4)
//                             holds rows g and g + 8 of A and column g of each 8-column group of B,
//                             8 values of K each, the four t lanes side by side (32 values)
//   tile.m       the most rows of A (M <= tile.m): every block holds all of them (16 for mma.sync)
//   tile.n       columns of C per block (a multiple of 8 for mma.sync)
//   warps.k      warps per block, splitting each step's K between them
//   tile.k       K values the block reads per step: warps.k x warp_tile.k x `chunks`, where
//                `chunks` is the chunk indices a lane holds in registers per step (its loads in
//                flight before the first multiply)
#pragma once

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda::gemv {

inline constexpr int chunk_elements = 8;                   // one 16-byte load of 16-bit values
inline constexpr int warp_step = 32 * chunk_elements;      // K values of one chunk index, whole warp (CUDA cores)
inline constexpr int mma_warp_step = 4 * chunk_elements;   // the same on mma.sync: four t lanes side by side
inline constexpr int max_rows = 8, max_cols = 8, max_warps = 16;
inline constexpr int mma_rows = 16, mma_max_cols = 32;     // m16n8k16: 16 rows; up to 4 column groups
// 16-byte chunks of A and B a lane holds per step, (tile.m + tile.n) x tile.k values over the block's
// lanes: 64 registers of loads. (CUDA cores: (rows + cols) x chunks; mma.sync: (2 + cols / 8) x chunks.)
inline constexpr int max_chunks_in_flight = 16;

constexpr bool is_mma_warp_tile(const mnk& t) { return t.m == 16 && t.n == 8 && t.k == mma_warp_step; }
constexpr bool is_simt_warp_tile(const mnk& t) { return t.m == 1 && t.n == 1 && t.k == warp_step; }

constexpr bool is_16bit(dtype d) { return d == dtype::fp16 || d == dtype::bf16; }

// nullptr when gemv builds `k`, else the first rule it breaks. config<K> asserts it; the
// arch tables' agreement test (tests/unit/table_kernel_agreement_test.cu) calls it on every
// key the tables accept.
constexpr const char* key_unsupported_reason(const gemm_key& k) {
  const gemm_signature& s = k.sig;
  const gemm_algorithm& a = k.algo;
  if (!k.concrete()) return "gemv needs a concrete key";
  if (a.pipe != pipeline::gemv) return "gemv::gemm implements pipeline::gemv";
  if (!is_16bit(s.a) || s.b != s.a || s.compute != s.a || s.acc != dtype::fp32)
    return "gemv: A and B fp16 or bf16 (the same), multiplied in their type, accumulated in fp32";
  if (s.c != s.a && s.c != dtype::fp32) return "gemv: C is A's dtype or fp32";
  if (s.lay.a != layout::row || s.lay.b != layout::col)
    return "gemv: A row-major and B column-major (rows of A and columns of B contiguous along K)";
  if (s.variant != gemm_variant::standard) return "gemv: the standard variant only";
  if (a.warps.m != 1 || a.warps.n != 1 || a.warps.k < 1 || a.warps.k > max_warps)
    return "gemv: warps (1, 1, w) with w in 1..16";
  const bool mma = is_mma_warp_tile(a.warp_tile);
  if (!mma && !is_simt_warp_tile(a.warp_tile))
    return "gemv: warp_tile (1, 1, 256) on CUDA cores or (16, 8, 32) on mma.sync";
  if (mma) {
    if (a.tile.m != mma_rows) return "gemv: tile.m 16 on mma.sync (the instruction's rows)";
    if (a.tile.n % 8 != 0 || a.tile.n < 8 || a.tile.n > mma_max_cols)
      return "gemv: tile.n 8, 16, 24 or 32 on mma.sync (8-column groups)";
  } else {
    if (a.tile.m < 1 || a.tile.m > max_rows) return "gemv: tile.m (rows of A) in 1..8 on CUDA cores";
    if (a.tile.n < 1 || a.tile.n > max_cols) return "gemv: tile.n (columns per block) in 1..8 on CUDA cores";
  }
  if (a.tile.k % (a.warps.k * a.warp_tile.k) != 0) return "gemv: tile.k a multiple of warps.k x warp_tile.k";
  if ((a.tile.m + a.tile.n) * (a.tile.k / (a.warps.k * warp_step)) > max_chunks_in_flight)
    return "gemv: (tile.m + tile.n) x tile.k / (warps.k x 256) 16-byte chunks per lane and step at most 16 (registers)";
  if (a.vector_bytes != 16) return "gemv: vector_bytes 16 (A and B in 16-byte chunks)";
  if (a.stages != 1) return "gemv: stages 1 (no shared-memory ring)";
  if (a.epi != epilogue::direct || a.sched != scheduler::intrawave)
    return "gemv: epilogue direct, scheduler intrawave";
  if (a.cluster_m != 1 || a.cluster_n != 1) return "gemv: no thread-block clusters";
  if (a.index_bits != 32 && a.index_bits != 64) return "gemv: index_bits 32 or 64";
  return nullptr;
}

template <gemm_key K>
struct config {
  static_assert(key_unsupported_reason(K) == nullptr,
                "key not supported by the gemv kernel: see gemv::key_unsupported_reason(K)");
  static constexpr gemm_algorithm algo = K.algo;
  using ta = storage_t<K.sig.a>;
  using tc = storage_t<K.sig.c>;
  static constexpr int rows = K.algo.tile.m;
  static constexpr int cols = K.algo.tile.n;
  static constexpr int warps = K.algo.warps.k;
  static constexpr int threads = 32 * warps;
  static constexpr int step = K.algo.tile.k;                       // K values per block per step
  static constexpr bool mma = is_mma_warp_tile(K.algo.warp_tile);
  static constexpr int lane_step = mma ? mma_warp_step : warp_step;  // K values of a warp's chunk index
  static constexpr int chunks = step / (warps * lane_step);          // chunk indices per lane and step
  static constexpr int warp_span = chunks * lane_step;               // K values one warp reads per step
  static constexpr int col_groups = cols / 8;                        // mma.sync: 8-column groups
  static constexpr bool c_row_major = K.sig.lay.c == layout::row;
};

}  // namespace kdecl::kernels::cuda::gemv
