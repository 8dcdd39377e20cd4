// Direct epilogue: accumulator registers -> global C, fused with
//   C = ew(alpha * acc + beta * C_old + sum_i D_i)   (beta == 0: C_old is not read).
//
// Each thread owns pairs of adjacent columns (see wgmma_mma.cuh), so C, C_old and
// D move two elements per access; a pair that straddles the right edge of C falls
// back to one element. Rows and columns past M and N are skipped when the key pads.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"

namespace kdecl::kernels::cuda::sm90 {

// acc[i][r]: m64 block i of this consumer warpgroup; `row0`/`col0` are the block
// tile's first output row/column plus this thread's offset inside the fragment.
// Two passes over the fragment: all loads (C_old, D) first, then all stores, so
// the loads are not held behind stores the compiler must assume may alias them.
template <gemm_key K, class Cfg>
__device__ __forceinline__ void epilogue_direct(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                const gemm_sm90_params& p, int batch, int row0, int col0) {
  using out_t = typename Cfg::out_t;
  out_t* c = static_cast<out_t*>(p.c) + batch * p.stride_c;
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 64 * i + 8 * h;
      if (Cfg::check_m && row >= p.m) continue;
      const std::int64_t c_row = static_cast<std::int64_t>(row) * p.ldc;
      const std::int64_t d_row = static_cast<std::int64_t>(row) * p.ldd;
#pragma unroll
      for (int j = 0; j < Cfg::tile_n / 8; ++j) {
        const int col = col0 + 8 * j;
        float* v = &acc[i][4 * j + 2 * h];
        if (!Cfg::check_n || col + 1 < p.n) {
          gather_inputs<K, 2>(v, c, c_row + col, p, d_row + col, batch);
        } else if (col < p.n) {
          gather_inputs<K, 1>(v, c, c_row + col, p, d_row + col, batch);
        }
      }
    }
  }
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = row0 + 64 * i + 8 * h;
      if (Cfg::check_m && row >= p.m) continue;
      out_t* c_row = c + static_cast<std::int64_t>(row) * p.ldc;
#pragma unroll
      for (int j = 0; j < Cfg::tile_n / 8; ++j) {
        const int col = col0 + 8 * j;
        const float* v = &acc[i][4 * j + 2 * h];
        if (!Cfg::check_n || col + 1 < p.n) {
          store_outputs<K, 2>(v, c_row + col);
        } else if (col < p.n) {
          store_outputs<K, 1>(v, c_row + col);
        }
      }
    }
  }
}

}  // namespace kdecl::kernels::cuda::sm90
