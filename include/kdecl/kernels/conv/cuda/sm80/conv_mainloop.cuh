// The cp.async ring of the sm_80 convolutions (every direction): `stages - 1`
// k tiles in flight, one commit group per tile, the GEMM's warp (block_warp:
// mma.sync, or FFMA for exact fp32; gemm/cuda/sm80/) consuming one stage while the loaders
// fill the next. The loaders are the direction's (im2col gather, weights,
// transposed gather); issue(stage, t) copies local k tile t (0 .. k_tiles-1)
// into `stage`, so a split-K block passes its own range.
#pragma once

#include <cstdint>

#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_warp.cuh"

namespace kdecl::kernels::cuda::sm80 {

template <class Cfg, class Issue>
__device__ __forceinline__ void conv_mainloop(block_warp<Cfg>& w, std::uint32_t ring, int k_tiles, Issue&& issue) {
  const std::uint32_t b_ring = ring + Cfg::stages * Cfg::a_stage_bytes;
  // Prologue: stages-1 tiles in flight, one commit group per tile (empty past the end).
#pragma unroll
  for (int s = 0; s < Cfg::stages - 1; ++s) {
    if (s < k_tiles) issue(s, s);
    cp_async_commit();
  }
  int read_stage = 0, write_stage = Cfg::stages - 1;
  auto next = [](int s) { return s + 1 == Cfg::stages ? 0 : s + 1; };
  cp_async_wait<Cfg::stages - 2>();
  __syncthreads();
  for (int kt = 0; kt < k_tiles; ++kt) {
    if (kt + Cfg::stages - 1 < k_tiles) issue(write_stage, kt + Cfg::stages - 1);  // the stage of tile kt-1: free
    cp_async_commit();
    w.compute_tile(ring + read_stage * Cfg::a_stage_bytes, b_ring + read_stage * Cfg::b_stage_bytes);
    cp_async_wait<Cfg::stages - 2>();
    __syncthreads();  // tile kt+1 visible; everybody is done with tile kt
    read_stage = next(read_stage);
    write_stage = next(write_stage);
  }
}

}  // namespace kdecl::kernels::cuda::sm80
