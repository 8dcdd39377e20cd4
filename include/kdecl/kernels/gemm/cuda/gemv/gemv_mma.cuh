// gemv on mma.sync: the streaming GEMM of gemv.cuh for up to 16 rows of A, multiplied by the
// tensor cores' m16n8k16 instruction instead of CUDA-core FMAs. From about 8 rows up the FMAs (and
// the widening of every 16-bit value to a float) cost more issue slots than the loads leave free;
// one mma.sync does 16 x 8 x 16 multiply-adds on the registers the loads filled, as they arrived.
//
// The loads are gemv.cuh's: B's columns streamed in 16-byte chunks past L1, A's rows through L1,
// `chunks` chunk indices per lane loaded before the step's first multiply. What changes is who
// holds what. Lane (g, t) = (lane / 4, lane % 4) of a warp loads, for each chunk index j, the 16
// bytes at K offset j * 32 + t * 8 of
//   - rows g and g + 8 of A (zeros past M), and
//   - column g of every 8-column group of the block's columns,
// so that a column's four t lanes read 64 contiguous bytes. The K order inside an instruction
// does not matter to a dot product, only that A and B agree on it: the chunk's values 0-3 feed
// one m16n8k16 as the k pairs {2t, 2t + 1} and {2t + 8, 2t + 9}, values 4-7 a second one. Every
// lane holding the same t reads the same K offsets, which is all the fragments need: A's fragment
// is {row g: 0-1, row g+8: 0-1, row g: 2-3, row g+8: 2-3}, B's {0-1, 2-3} (then 4-7 alike).
// The accumulators come out as C's fragment: rows g and g + 8, columns 2t and 2t + 1 of a group.
#pragma once

#include <cstdint>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_config.cuh"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_memory.cuh"

namespace kdecl::kernels::cuda::gemv {

// One m16n8k16 of the key's 16-bit type.
template <class T>
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>)
    sm80::mma_bf16(d, a, b);
  else
    sm80::mma_fp16(d, a, b);
}

// One step of K from `k0` on mma.sync: every chunk loaded first, then multiplied. `Tail`: the
// last, partial step (chunks may straddle or pass K; both operands read zeros past it).
template <class Cfg, bool Tail>
__device__ __forceinline__ void mma_step(float (&acc)[Cfg::col_groups][4], const typename Cfg::ta* a,
                                         const typename Cfg::ta* b, const params<Cfg>& p, int cols_here, int k0,
                                         int warp, int lane) {
  constexpr int chunks = Cfg::chunks;
  const int g = lane / 4, t = lane % 4;
  const int first = k0 + warp * Cfg::warp_span + t * chunk_elements;  // this lane's chunk 0
  uint4 bv[Cfg::col_groups][chunks], lo[chunks], hi[chunks];           // B; A's rows g and g + 8
#pragma unroll
  for (int c = 0; c < Cfg::col_groups; ++c)
#pragma unroll
    for (int j = 0; j < chunks; ++j) {
      const int col = c * 8 + g, at = first + j * mma_warp_step;
      bv[c][j] = make_uint4(0, 0, 0, 0);
      if (col < cols_here && (!Tail || at < p.k))
        bv[c][j] = Tail ? load_chunk<true>(b + col * p.ldb, at, p.k) : load_streaming(b + col * p.ldb + at);
    }
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const int at = first + j * mma_warp_step;
    lo[j] = hi[j] = make_uint4(0, 0, 0, 0);
    if (!Tail || at < p.k) {
      if (g < p.m) lo[j] = Tail ? load_chunk<false>(a + g * p.lda, at, p.k) : load_cached(a + g * p.lda + at);
      if (g + 8 < p.m)
        hi[j] = Tail ? load_chunk<false>(a + (g + 8) * p.lda, at, p.k) : load_cached(a + (g + 8) * p.lda + at);
    }
  }
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    const std::uint32_t a0[4] = {lo[j].x, hi[j].x, lo[j].y, hi[j].y};  // values 0-3 of the chunk
    const std::uint32_t a1[4] = {lo[j].z, hi[j].z, lo[j].w, hi[j].w};  // values 4-7
#pragma unroll
    for (int c = 0; c < Cfg::col_groups; ++c) {
      const std::uint32_t b0[2] = {bv[c][j].x, bv[c][j].y}, b1[2] = {bv[c][j].z, bv[c][j].w};
      mma_16x8x16<typename Cfg::ta>(acc[c], a0, b0);
      mma_16x8x16<typename Cfg::ta>(acc[c], a1, b1);
    }
  }
}

// One block's columns on mma.sync: the body of gemv_kernel (gemv.cuh) for an mma warp tile.
template <class Cfg>
__device__ __forceinline__ void gemv_mma_block(const params<Cfg>& p) {
  const auto at = block_position_of(p);
  const int lane = at.lane, warp = at.warp;

  float acc[Cfg::col_groups][4] = {};
  for_each_step<Cfg>(p.k, [&](auto tail, int k0) {
    mma_step<Cfg, decltype(tail)::value>(acc, at.a, at.b, p, at.cols_here, k0, warp, lane);
  });

  // C's fragment of each warp into the block's partial sums, then across the warps.
  __shared__ float partial[Cfg::warps][Cfg::rows * Cfg::cols];
  const int g = lane / 4, t = lane % 4;
#pragma unroll
  for (int c = 0; c < Cfg::col_groups; ++c) {
    const int col = c * 8 + 2 * t;
    partial[warp][g * Cfg::cols + col] = acc[c][0];
    partial[warp][g * Cfg::cols + col + 1] = acc[c][1];
    partial[warp][(g + 8) * Cfg::cols + col] = acc[c][2];
    partial[warp][(g + 8) * Cfg::cols + col + 1] = acc[c][3];
  }
  __syncthreads();
  store_block_sums<Cfg>(partial, p, at.batch, at.n0, at.cols_here);
}

}  // namespace kdecl::kernels::cuda::gemv
