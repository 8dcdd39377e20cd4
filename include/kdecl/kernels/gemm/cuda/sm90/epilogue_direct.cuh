// Direct epilogue: accumulator registers -> global C, fused with
//   C = ew(alpha * acc + beta * C_old + sum_i D_i)   (beta == 0: C_old is not read).
//
// Each thread owns pairs of adjacent columns (see wgmma_mma.cuh), so C, C_old and
// D move two elements per access where aligned; a pair that straddles the right
// edge of C, or lies at an address not aligned to the pair, moves element by
// element. Rows and columns past M and N are skipped when the key pads.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/output_rows.cuh"

namespace kdecl::kernels::cuda::sm90 {

// acc[i][r]: m64 block i of this consumer warpgroup; `row0`/`col0` are the block
// tile's first output row/column plus this thread's offset inside the fragment.
// Two passes over the fragment: all loads (C_old, D) first, then all stores, so
// the loads are not held behind stores the compiler must assume may alias them.
// A pair moves as one access where its address allows (C's and each D's own
// alignment), else as two elements. Rows land where `rows` says (output_rows.cuh).
template <gemm_key K, class Cfg, class Rows = linear_rows>
__device__ __forceinline__ void epilogue_direct(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                const gemm_sm90_params& p, int batch, int row0, int col0,
                                                const Rows& rows) {
  using out_t = typename Cfg::out_t;
  out_t* c = static_cast<out_t*>(p.c) + batch * p.stride_c;
  // The pair (col, col + 1) of this thread: both, one or none inside C.
  const auto pair_at = [&](int col) {
    element_run<2> run;
    run.first = col;
    if (Cfg::check_n) run.valid = (col < p.n ? 1u : 0u) | (col + 1 < p.n ? 2u : 0u);
    return run;
  };
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 64 * i + 8 * h;
      if ((Cfg::check_m && row >= p.m) || !row_stored(rows, row)) continue;
      const out_t* c_row = c + row_offset<K>(rows, row);
#pragma unroll
      for (int j = 0; j < Cfg::tile_n / 8; ++j) {
        const element_run<2> run = pair_at(col0 + 8 * j);
        if (run.valid == 0) continue;
        gather_inputs<K, 2>(&acc[i][4 * j + 2 * h], c_row, run, run.whole() && vector_aligned<2>(c_row + run.first),
                            p, batch, row, 0);
      }
    }
  }
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 64 * i + 8 * h;
      if ((Cfg::check_m && row >= p.m) || !row_stored(rows, row)) continue;
      out_t* c_row = c + row_offset<K>(rows, row);
#pragma unroll
      for (int j = 0; j < Cfg::tile_n / 8; ++j) {
        const element_run<2> run = pair_at(col0 + 8 * j);
        if (run.valid == 0) continue;
        store_outputs<K, 2>(&acc[i][4 * j + 2 * h], c_row, run, run.whole() && vector_aligned<2>(c_row + run.first));
      }
    }
  }
}

}  // namespace kdecl::kernels::cuda::sm90
