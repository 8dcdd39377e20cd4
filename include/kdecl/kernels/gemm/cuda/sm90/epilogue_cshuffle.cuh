// Staged ("cshuffle") epilogue: each consumer warp moves its accumulators through
// a private shared-memory strip of 16 rows x 32 columns, then reads the strip back
// four consecutive columns per lane, so C_old, D and C move as full 64-128-byte row
// segments and the per-element work (alpha/beta, D sum, elementwise op) runs in a
// compact loop instead of fully unrolled code (which, with erf-based GELU and the
// fragment's 128 values, overflows the instruction cache).
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/d_tiles.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/mbarrier.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int cshuffle_cols = 32;
inline constexpr int cshuffle_ld = cshuffle_cols + 4;          // floats; +4 spreads rows over banks
inline constexpr int cshuffle_warp_floats = 16 * cshuffle_ld;  // one warp's strip

// `strip`: this warp's shared strip; `row0`: the warp's first output row of m64
// block 0; `col0`: the block tile's first output column. SmemD (d_tiles.cuh): D
// comes from the tile's D slots in the ring (`d_ring`; `tile_row0` = row0 minus the
// tile's first row), which this warp waits for strip by strip and frees when done.
template <gemm_key K, class Cfg, bool SmemD>
__device__ __forceinline__ void epilogue_cshuffle(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                  const gemm_sm90_params& p, int batch, int row0, int col0,
                                                  float* strip, int lane, const d_ring_view& d_ring, int tile_row0) {
  using out_t = typename Cfg::out_t;
  using dl = d_tile_layout<Cfg>;
  static_assert(!SmemD || (dl::enabled && dl::chunk_cols == cshuffle_cols));
  out_t* c = static_cast<out_t*>(p.c) + batch * p.stride_c;
  constexpr int col_groups = cshuffle_cols / 8;  // 8-column groups of the wgmma fragment per strip
#pragma unroll
  for (int s = 0; s < Cfg::tile_n / cshuffle_cols; ++s) {
    if constexpr (SmemD) {  // the D slots this strip is the first to read
#pragma unroll
      for (int j = s == 0 ? 0 : dl::last_slot(s - 1) + 1; j <= dl::last_slot(s); ++j)
        mbarrier_wait(&d_ring.full[d_slot_stage<Cfg>(d_ring, j)], d_slot_phase<Cfg>(d_ring, j));
    }
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
      const int col_base = col0 + s * cshuffle_cols;
#pragma unroll 1
      for (int pass = 0; pass < 16 / 4; ++pass) {
        const int r = pass * 4 + lane / 8;
        const int cc = (lane % 8) * 4;
        const int row = row0 + 64 * i + r;
        const int col = col_base + cc;
        if (Cfg::check_m && row >= p.m) continue;
        const float4 f = *reinterpret_cast<const float4*>(strip + r * cshuffle_ld + cc);
        float v[4] = {f.x, f.y, f.z, f.w};
        const std::int64_t c_off = static_cast<std::int64_t>(row) * p.ldc + col;
        const std::int64_t d_off = static_cast<std::int64_t>(row) * p.ldd + col;
        // Offset of (row, col) inside a D chunk (tile_m x 32, row-major).
        const int chunk_off = (tile_row0 + 64 * i + r) * cshuffle_cols + cc;
        // D tensor d at (row, col) in its chunk of this strip (SmemD only).
        const auto smem_d = [&](auto d) {  // generic: instantiated only where SmemD uses it
          const int q = s * dl::num_d + d;
          const int stage = d_slot_stage<Cfg>(d_ring, q / dl::chunks_per_slot);
          return reinterpret_cast<const out_t*>(d_chunk<Cfg>(d_ring.ring_a, d_ring.ring_b, stage, q)) + chunk_off;
        };
        if (!Cfg::check_n || col + 3 < p.n) {
          if constexpr (SmemD) {
            combine_inputs<K, 4>(v, c + c_off, p, [&](int d, float* out) { load_elements<4>(smem_d(d), out); });
          } else {
            gather_inputs<K, 4>(v, c, c_off, p, d_off, batch);
          }
          store_outputs<K, 4>(v, c + c_off);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            if (col + e < p.n) {
              if constexpr (SmemD) {
                combine_inputs<K, 1>(&v[e], c + c_off + e, p,
                                     [&](int d, float* out) { load_elements<1>(smem_d(d) + e, out); });
              } else {
                gather_inputs<K, 1>(&v[e], c, c_off + e, p, d_off + e, batch);
              }
              store_outputs<K, 1>(&v[e], c + c_off + e);
            }
          }
        }
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

}  // namespace kdecl::kernels::cuda::sm90
