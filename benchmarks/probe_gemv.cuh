// A probe, not a shipped kernel (benchmarks/sm90_probe.cu, mode `gemv`): whether a
// CUDA-core kernel streams the weights of a decode-sized GEMM (M <= 16 rows of A) closer
// to the copy bandwidth than the tma_wgmma kernels, which reach 65-75% of it at
// N x K = 8192 x 8192 and M = 1 (docs/perf/h200-2026-12-01-gemm-retune-conv-tma-store/):
// 128 blocks of one 64-row tile each, 63 of whose rows are zeros, and a cluster split of
// K reduced through distributed shared memory.
//
// C[m][n] = alpha * sum_k A[m][k] * B[n][k], rcr: A row-major (M x K), B column-major
// (each output column's K values contiguous, as the weights of a linear layer are stored),
// C row-major. Each warp owns a run of columns and, R columns at a time, walks their K in
// 16-byte chunks (8 values per lane), U chunks per lane in flight per column: R x U x 512
// bytes of B per warp in flight. A's M rows (M x K x 2 bytes, at most 256 KB) are read
// through L1 and L2; B bypasses L1 (ld.global.cs). Partial sums per lane, one warp
// reduction per column at the end. Needs K, lda, ldb multiples of 8 and 16-byte aligned
// A and B (the probe's shapes).
#pragma once

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kdecl/kernels/cuda/device_types.cuh"  // from_float

namespace kdecl_probe {

template <class T>
__device__ __forceinline__ float2 pair_to_float2(std::uint32_t w);
template <>
__device__ __forceinline__ float2 pair_to_float2<__nv_bfloat16>(std::uint32_t w) {
  __nv_bfloat162 h;
  static_assert(sizeof(h) == sizeof(w));
  __builtin_memcpy(&h, &w, sizeof(w));
  return __bfloat1622float2(h);
}
template <>
__device__ __forceinline__ float2 pair_to_float2<__half>(std::uint32_t w) {
  __half2 h;
  static_assert(sizeof(h) == sizeof(w));
  __builtin_memcpy(&h, &w, sizeof(w));
  return __half22float2(h);
}

// acc += dot of 8 values of a and 8 of b (one 16-byte chunk each).
template <class T>
__device__ __forceinline__ float dot8(const uint4& a, const uint4& b, float acc) {
  const std::uint32_t wa[4] = {a.x, a.y, a.z, a.w}, wb[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 x = pair_to_float2<T>(wa[i]), y = pair_to_float2<T>(wb[i]);
    acc = fmaf(x.x, y.x, acc);
    acc = fmaf(x.y, y.y, acc);
  }
  return acc;
}

inline constexpr int gemv_threads = 256;

// Warp w computes columns [w * cols_per_warp, (w + 1) * cols_per_warp) of C, clipped to n.
template <class T, int M, int R, int U>
__global__ void __launch_bounds__(gemv_threads) gemv_rcr(const T* __restrict__ a, std::int64_t lda,
                                                         const T* __restrict__ b, std::int64_t ldb, T* __restrict__ c,
                                                         std::int64_t ldc, int n, int k, float alpha,
                                                         int cols_per_warp) {
  const int lane = threadIdx.x % 32;
  const int warp = int((blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32);
  const int first = warp * cols_per_warp;
  const int last = min(n, first + cols_per_warp);
  constexpr int step = 32 * 8 * U;  // K values a warp covers per iteration
  for (int n0 = first; n0 < last; n0 += R) {
    float acc[M][R];
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int r = 0; r < R; ++r) acc[m][r] = 0.0f;
    // Whole steps first (every lane's U chunks inside K, no predicates), then the partial
    // last step. ptxas interleaves the loads with the multiplies (35 registers at M = 1: it
    // keeps two or three chunks in flight per warp and relies on 60-odd warps per SM).
    const int whole_end = k - (step - 8);  // k0 < whole_end: chunks k0 .. k0 + (U - 1) * 256 all < k
    int k0 = lane * 8;
    for (; k0 < whole_end; k0 += step) {
      uint4 bv[R][U];
#pragma unroll
      for (int r = 0; r < R; ++r)
#pragma unroll
        for (int u = 0; u < U; ++u)
          bv[r][u] = __ldcs(reinterpret_cast<const uint4*>(b + (n0 + r < last ? n0 + r : n0) * ldb + k0 + u * 256));
      uint4 av[M][U];
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int u = 0; u < U; ++u) av[m][u] = __ldg(reinterpret_cast<const uint4*>(a + m * lda + k0 + u * 256));
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int r = 0; r < R; ++r) acc[m][r] = dot8<T>(av[m][u], bv[r][u], acc[m][r]);
    }
    for (; k0 < k; k0 += 256) {  // the rest, one chunk per lane at a time
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const uint4 bv = __ldcs(reinterpret_cast<const uint4*>(b + (n0 + r < last ? n0 + r : n0) * ldb + k0));
#pragma unroll
        for (int m = 0; m < M; ++m)
          acc[m][r] = dot8<T>(__ldg(reinterpret_cast<const uint4*>(a + m * lda + k0)), bv, acc[m][r]);
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
#pragma unroll
      for (int r = 0; r < R; ++r) {
        float v = acc[m][r];
#pragma unroll
        for (int off = 16; off > 0; off /= 2) v += __shfl_xor_sync(0xffffffffu, v, off);
        if (lane == 0 && n0 + r < last) c[m * ldc + n0 + r] = kdecl::kernels::cuda::from_float<T>(alpha * v);
      }
    }
  }
}

// Launch shape: as many warps as fit on the device at once (or fewer where n is small),
// each a whole number of R-column groups, no warp without columns.
struct gemv_launch {
  int blocks = 0, cols_per_warp = 0;
};

template <class T, int M, int R, int U>
gemv_launch plan_gemv(int n, int sm_count) {
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, gemv_rcr<T, M, R, U>, gemv_threads, 0);
  const int warps_per_block = gemv_threads / 32;
  const std::int64_t most_warps = std::int64_t(per_sm > 0 ? per_sm : 1) * sm_count * warps_per_block;
  const std::int64_t groups = (n + R - 1) / R;
  const std::int64_t groups_per_warp = (groups + most_warps - 1) / most_warps;
  gemv_launch l;
  l.cols_per_warp = int(groups_per_warp * R);
  const std::int64_t warps = (n + l.cols_per_warp - 1) / l.cols_per_warp;
  l.blocks = int((warps + warps_per_block - 1) / warps_per_block);
  return l;
}

template <class T, int M, int R, int U>
void run_gemv(const void* a, const void* b, void* c, int n, int k, const gemv_launch& l, cudaStream_t stream) {
  gemv_rcr<T, M, R, U><<<l.blocks, gemv_threads, 0, stream>>>(static_cast<const T*>(a), k, static_cast<const T*>(b), k,
                                                               static_cast<T*>(c), n, n, k, 1.0f, l.cols_per_warp);
}

}  // namespace kdecl_probe
