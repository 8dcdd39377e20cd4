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
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/sm90/tma_store.cuh"
#include "kdecl/kernels/gemm/cuda/common/element_run.cuh"
#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"

namespace kdecl::kernels::cuda::sm90 {

// The chunk a warp stores at once: 16 rows of 64 bytes, two per strip (double-buffered).
template <class Cfg>
struct tma_store_chunks {
  using out_t = typename Cfg::out_t;
  static constexpr int elem_bytes = static_cast<int>(sizeof(out_t));
  static constexpr bool enabled = Cfg::staged_epilogue && (elem_bytes == 2 || elem_bytes == 4) &&
                                  Cfg::key.sig.variant == gemm_variant::standard;
  static constexpr int row_bytes = 64;
  static constexpr int cols = row_bytes / elem_bytes;  // 32 16-bit or 16 32-bit values
  static constexpr int rows = 16;                      // one warp's share of an m64 block
  static constexpr int bytes = rows * row_bytes;
  static constexpr int fragment_groups = cols / 8;     // 8-column groups of the wgmma fragment
  // Every tile stores an even number of chunks, so the halves alternate across tiles too.
  static_assert(!enabled || Cfg::tile_n % (2 * cols) == 0, "a tile's chunks alternate between the strip's halves");
};

// `row0`: the warp's first output row of m64 block 0; `col0`: the tile's first column;
// `strip`: the warp's strip (128-byte aligned, at least two chunks).
template <gemm_key K, class Cfg>
__device__ __forceinline__ void epilogue_tma_store(const float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                   const gemm_sm90_params& p, int batch, int row0, int col0,
                                                   unsigned char* strip, int lane) {
  using chunks = tma_store_chunks<Cfg>;
  using out_t = typename chunks::out_t;
  static_assert(2 * chunks::bytes <= cshuffle_strip_bytes, "two chunks fit a warp's strip");
  // Lane l holds rows l/4 and l/4 + 8 of the warp's 16, two adjacent columns per 8-column group.
  const int row_a = lane / 4;
  const int col_pair = 2 * (lane % 4);
  int half = 0;
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int s = 0; s < Cfg::tile_n / chunks::cols; ++s) {
      unsigned char* box = strip + half * chunks::bytes;
      if (lane == 0) bulk_wait_group_read<1>();  // the store that last read this half is done reading
      __syncwarp();
#pragma unroll
      for (int g = 0; g < chunks::fragment_groups; ++g) {
        const int r = 4 * (chunks::fragment_groups * s + g);
        const int col = 8 * g + col_pair;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const float x = apply_elementwise<K.sig.ew>(p.alpha * acc[i][r + 2 * h]);
          const float y = apply_elementwise<K.sig.ew>(p.alpha * acc[i][r + 2 * h + 1]);
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
    }
  }
}

// Before the block exits: this lane's stores have all landed.
__device__ __forceinline__ void tma_store_drain(int lane) {
  if (lane == 0) bulk_wait_group<0>();
}

}  // namespace kdecl::kernels::cuda::sm90
