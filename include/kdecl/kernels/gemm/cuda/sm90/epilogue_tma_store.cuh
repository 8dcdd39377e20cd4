// TMA-store epilogue: each consumer warp converts its accumulators, 16 rows x one
// 64-byte column chunk at a time, into a box in its private shared-memory strip and
// one lane hands the box to TMA, which writes it to C (clipping rows and columns past
// M and N) while the warp converts the next chunk into the strip's other half. The
// warp waits only for the TMA to have *read* a half before it fills it again.
//
// Measured on the H200 (docs/perf/): the staged (cshuffle) epilogue's per-element loop
// cost 4 us per 128x256 tile, as long as a K = 768 main loop; this path is a few
// shared-memory stores per chunk. It covers what the loop's generality is not needed for:
// C of 16 or 32 bits, no D tensors, beta = 0, no split-K, and a C that TMA can address
// (16-byte aligned base, leading dimension and batch stride). gemm_sm90.cuh decides per
// launch (params.c_via_tma); every other launch keeps the staged epilogue.
//
// D tensors (multi_d) read from global memory, as a convolution's fused bias and residual
// are (conv_sm90_kernel.cuh; kernels/conv/cuda/sm90/fused_epilogue_inputs.cuh), are added
// in the chunk loop too: each lane reads the two adjacent columns it holds of each row, one
// chunk ahead (load_chunk_d), from row pointers worked out once per tile (tile_d_rows). On
// the H100 the staged epilogue made ResNet-50's fused 1x1 convolutions 1.5-2.6x slower
// than the same convolutions without a fusion (2026-12-05, docs/perf/). The GEMM's own
// multi_d launches, whose D tiles come through the ring, keep the staged epilogue.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/sm90/tma_store.cuh"
#include "kdecl/kernels/gemm/cuda/common/element_run.cuh"
#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"

namespace kdecl::kernels::cuda::sm90 {

// The chunk a warp stores at once: 16 rows of 64 bytes, two per strip (double-buffered).
template <class Cfg>
struct tma_store_chunks {
  using out_t = typename Cfg::out_t;
  static constexpr int elem_bytes = static_cast<int>(sizeof(out_t));
  static constexpr bool suits = Cfg::staged_epilogue && (elem_bytes == 2 || elem_bytes == 4);
  // The GEMM's launches: no D tensors.
  static constexpr bool enabled = suits && Cfg::key.sig.variant == gemm_variant::standard;
  static constexpr int row_bytes = 64;
  static constexpr int cols = row_bytes / elem_bytes;  // 32 16-bit or 16 32-bit values
  static constexpr int rows = 16;                      // one warp's share of an m64 block
  static constexpr int bytes = rows * row_bytes;
  static constexpr int fragment_groups = cols / 8;     // 8-column groups of the wgmma fragment
  static_assert(Cfg::tile_n % cols == 0, "whole chunks per tile row");
  // A tile's chunks alternate between the strip's halves, each tile starting at half 0. With an
  // even count per tile (every tile.n but 160 in 16-bit) the halves alternate across tiles too;
  // with an odd count the last tile's last store read half 0, and the first chunk waits for it.
  static constexpr bool even_per_tile = (Cfg::m_blocks * (Cfg::tile_n / cols)) % 2 == 0;
  // Launches whose D tensors, if any, are read from global memory (params.d, never d_via_tma):
  // the convolutions' fused epilogues.
  static constexpr bool enabled_with_global_d = enabled || (suits && Cfg::key.sig.variant == gemm_variant::multi_d);
};

// Whether C can go through TMA (the rule for every key whose chunks allow it): no split-K,
// beta = 0, a 16-byte aligned base, leading dimension and batch stride, and rows of N
// elements a multiple of 16 bytes, since a TMA store writes the whole 16 bytes at a row's
// end (measured on the H200: N = 1 in bf16 wrote 8 elements). `ec`: C's element bytes.
inline bool c_storable_through_tma(const void* c, std::int64_t ec, std::int64_t n, std::int64_t ldc,
                                   std::int64_t batch, std::int64_t stride_c, float beta, int splits) {
  constexpr std::int64_t tma_stride_limit = std::int64_t{1} << 40;
  if (splits != 1 || beta != 0.0f) return false;
  if (reinterpret_cast<std::uintptr_t>(c) % 16 != 0 || (ldc * ec) % 16 != 0) return false;
  if ((n * ec) % 16 != 0) return false;
  if (batch > 1 && (stride_c <= 0 || (stride_c * ec) % 16 != 0)) return false;
  return ldc * ec < tma_stride_limit && stride_c * ec < tma_stride_limit;
}

// Where this lane reads the D tensors of one tile, worked out once: per D tensor and m64
// block, the lane's two rows (nullptr: past M), and whether the tile's columns all lie inside N
// with every row's pair of columns aligned for one vector load. Per element pair that leaves an
// add and a load: the full address arithmetic and bounds tests per pair (as it was)
// doubled the instructions of ResNet-50's fused 1x1 convolutions (Nsight Compute, 2026-12-05).
template <gemm_key K, class Cfg>
struct tile_d_rows {
  using out_t = typename tma_store_chunks<Cfg>::out_t;
  static constexpr int num_d = K.sig.variant == gemm_variant::multi_d ? K.sig.num_d : 0;
  const out_t* row[num_d > 0 ? num_d : 1][Cfg::m_blocks][2];
  bool vector_pairs;  // every pair inside N and aligned as element_vec<out_t, 2>

  // `row_a`: the lane's first row of m64 block 0; `col`: its first column of the tile.
  __device__ __forceinline__ static tile_d_rows at(const gemm_sm90_params& p, int batch, int row_a, int col0, int col) {
    tile_d_rows t;
    t.vector_pairs = col0 + Cfg::tile_n <= p.n;
#pragma unroll
    for (int d = 0; d < num_d; ++d)
#pragma unroll
      for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = row_a + 64 * i + 8 * h;
          const out_t* at = r < p.m ? d_element<K, out_t>(p, d, batch, r, col,
                                                           batch * p.stride_c + std::int64_t(r) * p.ldc + col)
                                    : nullptr;
          t.row[d][i][h] = at;
          if (at && reinterpret_cast<std::uintptr_t>(at) % sizeof(element_vec<out_t, 2>) != 0) t.vector_pairs = false;
        }
    return t;
  }
};

// The D tensors' values (summed) at this lane's pairs of one chunk: [row half][fragment
// group][pair element]. Read a chunk ahead of their use (epilogue_tma_store): a load the
// compiler would otherwise order after the chunk's shared-memory stores (it cannot tell them
// apart) waits for the L2.
template <class Cfg>
struct chunk_d_sums {
  float v[2][tma_store_chunks<Cfg>::fragment_groups][2];
};

// Chunk s of m64 block i; `col0`: the tile's first column, `col`: this lane's (col0 + col_pair).
template <gemm_key K, class Cfg>
__device__ __forceinline__ chunk_d_sums<Cfg> load_chunk_d(const gemm_sm90_params& p, const tile_d_rows<K, Cfg>& t,
                                                          int i, int s, int col) {
  using chunks = tma_store_chunks<Cfg>;
  using out_t = typename chunks::out_t;
  chunk_d_sums<Cfg> sums{};  // zeros
  const int step = s * chunks::cols;  // elements from the lane's first column
#pragma unroll
  for (int d = 0; d < tile_d_rows<K, Cfg>::num_d; ++d)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const out_t* row = t.row[d][i][h];
      if (row == nullptr) continue;
#pragma unroll
      for (int g = 0; g < chunks::fragment_groups; ++g) {
        const int at = step + 8 * g;
        if (t.vector_pairs) {
          const auto pair = *reinterpret_cast<const element_vec<out_t, 2>*>(row + at);
          sums.v[h][g][0] += to_float(pair.v[0]);
          sums.v[h][g][1] += to_float(pair.v[1]);
        } else {
          if (col + at < p.n) sums.v[h][g][0] += to_float(row[at]);
          if (col + at + 1 < p.n) sums.v[h][g][1] += to_float(row[at + 1]);
        }
      }
    }
  return sums;
}

// `row0`: the warp's first output row of m64 block 0; `col0`: the tile's first column;
// `strip`: the warp's strip (128-byte aligned, at least two chunks).
template <gemm_key K, class Cfg>
__device__ __forceinline__ void epilogue_tma_store(const float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                   const gemm_sm90_params& p, int batch, int row0, int col0,
                                                   unsigned char* strip, int lane) {
  using chunks = tma_store_chunks<Cfg>;
  using out_t = typename chunks::out_t;
  static_assert(2 * chunks::bytes <= cshuffle_strip_bytes, "two chunks fit a warp's strip");
  constexpr bool reads_d = K.sig.variant == gemm_variant::multi_d;
  constexpr int chunks_per_block = Cfg::tile_n / chunks::cols;
  // Lane l holds rows l/4 and l/4 + 8 of the warp's 16, two adjacent columns per 8-column group.
  const int row_a = lane / 4;
  const int col_pair = 2 * (lane % 4);
  tile_d_rows<K, Cfg> d_rows;
  if constexpr (reads_d) d_rows = tile_d_rows<K, Cfg>::at(p, batch, row0 + row_a, col0, col0 + col_pair);
  const auto chunk_d = [&](int i, int s) { return load_chunk_d<K, Cfg>(p, d_rows, i, s, col0 + col_pair); };
  chunk_d_sums<Cfg> d_now{}, d_next{};
  if constexpr (reads_d) d_now = chunk_d(0, 0);
  int half = 0;
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int s = 0; s < chunks_per_block; ++s) {
      if constexpr (reads_d) {  // the next chunk's D, in flight while this one is stored
        const int t = i * chunks_per_block + s + 1;
        if (t < Cfg::m_blocks * chunks_per_block) d_next = chunk_d(t / chunks_per_block, t % chunks_per_block);
      }
      unsigned char* box = strip + half * chunks::bytes;
      if (lane == 0) {  // the store that last read this half is done reading
        if (!chunks::even_per_tile && i == 0 && s == 0) bulk_wait_group_read<0>();
        else bulk_wait_group_read<1>();
      }
      __syncwarp();
#pragma unroll
      for (int g = 0; g < chunks::fragment_groups; ++g) {
        const int r = 4 * (chunks::fragment_groups * s + g);
        const int col = 8 * g + col_pair;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          float x = p.alpha * acc[i][r + 2 * h];
          float y = p.alpha * acc[i][r + 2 * h + 1];
          if constexpr (reads_d) {
            x += d_now.v[h][g][0];
            y += d_now.v[h][g][1];
          }
          x = apply_elementwise<K.sig.ew>(x);
          y = apply_elementwise<K.sig.ew>(y);
          unsigned char* at = box + (row_a + 8 * h) * chunks::row_bytes + col * chunks::elem_bytes;
          element_vec<out_t, 2> pair;
          pair.v[0] = from_float<out_t>(x);
          pair.v[1] = from_float<out_t>(y);
          *reinterpret_cast<element_vec<out_t, 2>*>(at) = pair;
        }
      }
      fence_proxy_async_shared();  // this lane's stores, visible to the TMA engine
      __syncwarp();
      if (lane == 0) {
        tma_store_3d(&p.map_c, box, col0 + s * chunks::cols, row0 + 64 * i, batch);
        bulk_commit_group();
      }
      half ^= 1;
      if constexpr (reads_d) d_now = d_next;
    }
  }
}

// Before the block exits: this lane's stores have all landed.
__device__ __forceinline__ void tma_store_drain(int lane) {
  if (lane == 0) bulk_wait_group<0>();
}

}  // namespace kdecl::kernels::cuda::sm90
