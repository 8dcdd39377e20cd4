// What both gemv kernels (gemv.cuh on CUDA cores, gemv_mma.cuh on mma.sync) share around their
// arithmetic: the launch parameters, the 16-byte chunk loads of A's rows and B's columns, and the
// block's last act, adding its warps' partial sums and writing C.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_types.cuh"

#include "kdecl/kernels/gemm/cuda/gemv/gemv_config.cuh"

namespace kdecl::kernels::cuda::gemv {

template <class Cfg>
struct params {
  using ta = typename Cfg::ta;
  using tc = typename Cfg::tc;
  const ta* a;
  const ta* b;
  tc* c;
  std::int64_t lda, ldb, ldc, stride_a, stride_b, stride_c;
  int m, n, k;
  float alpha, beta;
};

// One 16-byte chunk at `p` (16-byte aligned): B's through the non-coherent path without
// allocating in L1 (read once), A's through L1.
__device__ __forceinline__ uint4 load_streaming(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}
__device__ __forceinline__ uint4 load_cached(const void* p) { return __ldg(static_cast<const uint4*>(p)); }

// Chunk `at` (a multiple of 8) of a row of `k` values: whole when it lies inside the row, read
// value by value where it straddles the row's end, zeros past it.
template <bool Streaming, class T>
__device__ __forceinline__ uint4 load_chunk(const T* row, int at, int k) {
  if (at + chunk_elements <= k) return Streaming ? load_streaming(row + at) : load_cached(row + at);
  std::uint16_t h[chunk_elements] = {};
  const auto* bits = reinterpret_cast<const std::uint16_t*>(row);
#pragma unroll
  for (int i = 0; i < chunk_elements; ++i)
    if (at + i < k) h[i] = bits[at + i];
  uint4 v;
  std::memcpy(&v, h, sizeof v);
  return v;
}

// Where a block of either kernel stands: its lane and warp, its first column n0 and how many of
// its columns lie inside N, its batch, and A and B moved to that batch (B to column n0).
template <class Cfg>
struct block_position {
  int lane, warp, n0, cols_here;
  std::int64_t batch;
  const typename Cfg::ta* a;
  const typename Cfg::ta* b;
};
template <class Cfg>
__device__ __forceinline__ block_position<Cfg> block_position_of(const params<Cfg>& p) {
  block_position<Cfg> at;
  at.lane = int(threadIdx.x) % 32;
  at.warp = int(threadIdx.x) / 32;
  at.n0 = int(blockIdx.x) * Cfg::cols;
  at.cols_here = min(Cfg::cols, p.n - at.n0);
  at.batch = blockIdx.z;
  at.a = p.a + at.batch * p.stride_a;
  at.b = p.b + at.batch * p.stride_b + std::int64_t(at.n0) * p.ldb;
  return at;
}

// The block's walk along K: step(std::false_type{}, k0) for every whole step of Cfg::step values,
// then step(std::true_type{}, k0) for the partial one where K ends inside a step.
template <class Cfg, class Step>
__device__ __forceinline__ void for_each_step(int k, Step&& step) {
  const int whole_steps = k / Cfg::step;
  for (int s = 0; s < whole_steps; ++s) step(std::false_type{}, s * Cfg::step);
  if (whole_steps * Cfg::step < k) step(std::true_type{}, whole_steps * Cfg::step);
}

// Each warp has put its sums of the block's rows x columns in partial[warp][row * cols + col]
// (Cfg::warps arrays); adds them up and writes alpha * sum (+ beta * C) for the rows below M and
// the columns inside N, element by element (any ldc, either major-ness).
template <class Cfg>
__device__ __forceinline__ void store_block_sums(const float (&partial)[Cfg::warps][Cfg::rows * Cfg::cols],
                                                 const params<Cfg>& p, std::int64_t batch, int n0, int cols_here) {
  using tc = typename Cfg::tc;
  tc* c_out = p.c + batch * p.stride_c;
  for (int i = int(threadIdx.x); i < Cfg::rows * Cfg::cols; i += Cfg::threads) {
    const int r = i / Cfg::cols, c = i % Cfg::cols;
    if (r >= p.m || c >= cols_here) continue;
    float sum = 0.0f;
#pragma unroll
    for (int w = 0; w < Cfg::warps; ++w) sum += partial[w][i];
    const std::int64_t at = Cfg::c_row_major ? std::int64_t(r) * p.ldc + (n0 + c) : std::int64_t(n0 + c) * p.ldc + r;
    float out = p.alpha * sum;
    if (p.beta != 0.0f) out += p.beta * to_float(c_out[at]);
    c_out[at] = from_float<tc>(out);
  }
}

}  // namespace kdecl::kernels::cuda::gemv
