// Staged ("cshuffle") epilogue: each consumer warp moves its accumulators through
// a private shared-memory strip of 16 rows x 32 columns, then reads the strip back
// four consecutive columns per lane, so C_old, D and C move as full 64-128-byte row
// segments and the per-element work (alpha/beta, D sum, elementwise op) runs in a
// compact loop instead of fully unrolled code (which, with erf-based GELU and the
// fragment's 128 values, overflows the instruction cache). C may start anywhere:
// each row's 4-element runs are aligned to C's addresses, not to the tile
// (run_in_segment), so a misaligned C still moves in vectors but for one lane per
// row. A launch whose C rows all start aligned (params.c_rows_aligned, the common
// case) runs a copy of the loop that knows it and computes no alignment at all.
// Rows land where `rows` says (output_rows.cuh): ldc apart for the GEMM; a map's
// offsets are decoded once per tile, one row per lane, and passed round by shuffles.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/d_tiles.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/output_rows.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int cshuffle_cols = 32;
inline constexpr int cshuffle_ld = cshuffle_cols + 4;          // floats; +4 spreads rows over banks
inline constexpr int cshuffle_warp_floats = 16 * cshuffle_ld;  // one warp's strip

// `strip`: this warp's shared strip; `row0`: the warp's first output row of m64
// block 0; `col0`: the block tile's first output column. SmemD (d_tiles.cuh): D
// comes from the tile's D slots in the ring (`d_ring`; `tile_row0` = row0 minus the
// tile's first row), which this warp waits for strip by strip and frees when done.
// With a row map other than linear_rows and !AlignedC each row finds its own runs
// (its pixels need not start equally aligned).
template <gemm_key K, class Cfg, bool SmemD, bool AlignedC, class Rows>
__device__ __forceinline__ void epilogue_cshuffle_rows(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                  const gemm_sm90_params& p, int batch, int row0, int col0,
                                                  float* strip, int lane, const d_ring_view& d_ring, int tile_row0,
                                                  const Rows& rows) {
  using out_t = typename Cfg::out_t;
  constexpr bool linear = std::is_same_v<Rows, linear_rows>;
  static_assert(linear || Cfg::m_blocks <= 2, "a row map is shared out one row per lane: 32 rows per warp at most");
  static_assert(linear || !SmemD, "D tensors are read by the GEMM's rows, not through a row map");
  using idx = std::conditional_t<linear, index_t<K>, std::int64_t>;
  // A map's rows: lane l decodes row row0 + 64 (l / 16) + l % 16 once for the tile.
  idx mapped = 0;
  if constexpr (!linear) {
    const int row = row0 + 64 * (lane / 16) + lane % 16;
    if (lane / 16 < Cfg::m_blocks && row < p.m) mapped = rows(row);
  }
  // Offset of row row0 + 64 i + r; every lane of the warp calls it together.
  const auto offset_of = [&](int i, int r) -> idx {
    if constexpr (linear) {
      return row_offset<K>(rows, row0 + 64 * i + r);
    } else {
      return __shfl_sync(0xffffffffu, mapped, 16 * i + r);
    }
  };
  using dl = d_tile_layout<Cfg>;
  static_assert(!SmemD || (dl::enabled && dl::chunk_cols == cshuffle_cols));
  out_t* c = static_cast<out_t*>(p.c) + batch * p.stride_c;
  constexpr int col_groups = cshuffle_cols / 8;  // 8-column groups of the wgmma fragment per strip
  // The rows this lane stores (row0 + 64 i + 4 pass + lane / 8, each strip 32 columns on)
  // are congruent mod 4 and so start equally far before an aligned address of C: their
  // runs are the same for the whole tile. Lanes 0..6 (all 8 when C's rows are aligned)
  // take runs starting on aligned addresses; in a misaligned row lane 7 gathers the
  // head and the tail.
  const int head = AlignedC ? 0 : head_elements<4>(c + offset_of(0, lane / 8));
  const element_run<4> lane_run = run_in_segment<4>(lane % 8, cshuffle_cols / 4, head);
#pragma unroll
  for (int s = 0; s < Cfg::tile_n / cshuffle_cols; ++s) {
    if constexpr (SmemD) {  // the D slots this strip is the first to read
#pragma unroll
      for (int j = s == 0 ? 0 : dl::last_slot(s - 1) + 1; j <= dl::last_slot(s); ++j)
        mbarrier_wait(&d_ring.full[d_slot_stage<Cfg>(d_ring, j)], d_slot_phase<Cfg>(d_ring, j));
    }
    const int col_base = col0 + s * cshuffle_cols;
    const bool strip_inside = !Cfg::check_n || col_base + cshuffle_cols <= p.n;
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) {
      // Fragment -> strip: lane holds rows lane/4 and lane/4 + 8, columns 2*(lane%4) + {0,1} of each group.
#pragma unroll
      for (int g = 0; g < col_groups; ++g) {
        const int r = 4 * (col_groups * s + g);
        const int col = 8 * g + 2 * (lane % 4);
        *reinterpret_cast<float2*>(strip + (lane / 4) * cshuffle_ld + col) = make_float2(acc[i][r], acc[i][r + 1]);
        *reinterpret_cast<float2*>(strip + (lane / 4 + 8) * cshuffle_ld + col) =
            make_float2(acc[i][r + 2], acc[i][r + 3]);
      }
      __syncwarp();
      // Strip -> global: 8 lanes per row, 4 rows per pass.
#pragma unroll 1
      for (int pass = 0; pass < 16 / 4; ++pass) {
        const int r = pass * 4 + lane / 8;
        const int row = row0 + 64 * i + r;
        const idx row_at = offset_of(i, r);
        if ((Cfg::check_m && row >= p.m) || !row_stored(rows, row)) continue;
        out_t* c_row = c + row_at + col_base;  // this strip's segment
        // A map's rows need not start equally aligned: each finds its own runs.
        int row_head = head;
        element_run<4> run = lane_run;
        if constexpr (!linear && !AlignedC) {
          row_head = head_elements<4>(c_row);
          run = run_in_segment<4>(lane % 8, cshuffle_cols / 4, row_head);
        }
        if (!strip_inside) run.clip(p.n - col_base);
        const bool c_vector = run.whole();
        float v[4];
        const float* strip_row = strip + r * cshuffle_ld;
        if (AlignedC || row_head == 0) {  // an aligned row: one 16-byte read
          const float4 f = *reinterpret_cast<const float4*>(strip_row + run.first);
          v[0] = f.x; v[1] = f.y; v[2] = f.z; v[3] = f.w;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) v[e] = strip_row[run.at(e)];
        }
        if constexpr (SmemD) {
          // D tensor d's row r in its chunk of this strip (tile_m x 32, row-major).
          const int chunk_row = (tile_row0 + 64 * i + r) * cshuffle_cols;
          combine_inputs<K, 4>(v, c_row, run, c_vector, p, [&](int d, float* out) {
            const int q = s * dl::num_d + d;
            const int stage = d_slot_stage<Cfg>(d_ring, q / dl::chunks_per_slot);
            const out_t* d_row =
                reinterpret_cast<const out_t*>(d_chunk<Cfg>(d_ring.ring_a, d_ring.ring_b, stage, q)) + chunk_row;
            load_run(d_row, run, c_vector && row_head == 0, out);
          });
        } else {
          gather_inputs<K, 4>(v, c_row, run, c_vector, p, batch, row, col_base);
        }
        store_outputs<K, 4>(v, c_row, run, c_vector);
      }
      __syncwarp();
    }
    if constexpr (SmemD) {  // slots whose last strip this was: the producer may refill them
#pragma unroll
      for (int j = dl::slots_done_after(s - 1); j < dl::slots_done_after(s); ++j)
        if (lane == 0) mbarrier_arrive(&d_ring.empty[d_slot_stage<Cfg>(d_ring, j)]);
    }
  }
}

template <gemm_key K, class Cfg, bool SmemD, class Rows = linear_rows>
__device__ __forceinline__ void epilogue_cshuffle(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                  const gemm_sm90_params& p, int batch, int row0, int col0,
                                                  float* strip, int lane, const d_ring_view& d_ring, int tile_row0,
                                                  const Rows& rows) {
  if (p.c_rows_aligned) {
    epilogue_cshuffle_rows<K, Cfg, SmemD, true>(acc, p, batch, row0, col0, strip, lane, d_ring, tile_row0, rows);
  } else {
    epilogue_cshuffle_rows<K, Cfg, SmemD, false>(acc, p, batch, row0, col0, strip, lane, d_ring, tile_row0, rows);
  }
}

}  // namespace kdecl::kernels::cuda::sm90
