// gemv: C = alpha * A * B + beta * C for a few rows of A (M <= tile.m <= 8), the GEMM of a linear
// layer decoding one or a few tokens: B (the weights, N x K, each column contiguous along K) is
// read once from memory and nothing is reused enough for tensor cores to matter, so the kernel's
// only job is to keep enough of B in flight to reach the memory's bandwidth. This file: the
// CUDA-core arithmetic (warp_tile (1, 1, 256)), the kernel and its host side; gemv_mma.cuh: the
// same stream multiplied on mma.sync for up to 16 rows (warp_tile (16, 8, 32)).
//
// Block b computes columns [b * tile.n, (b + 1) * tile.n) of C for every row of A; its warps.k
// warps split each step's K (tile.k values) into contiguous spans, and each lane of a warp loads
// 16-byte chunks (8 values) of every column and every row of A at lane-interleaved positions
// (32 lanes x 16 bytes: one 512-byte run per chunk index), `chunks` per column per step, all of
// them before the step's first multiply. B bypasses L1 (it is read once); A, read by every block,
// is cached. The partial sums are reduced across each warp with shuffles and across the block's
// warps through a small shared array; C is written element by element (any alignment, either
// major-ness), with beta applied where it is not zero.
//
// Measured against the tma_wgmma tiles (H200, 2026-12-02, docs/perf/h200-2026-12-02-fmha-hdim256-
// persistent/gemv/: benchmarks/probe_gemv.cuh, the probe this kernel grew from): at M = 1 a
// CUDA-core stream reaches 80-100% of the copy bandwidth where the 64-row wgmma tiles reach 70-79%.
// The probe's warps walked all of K for their columns; with few columns (N = 2048, K = 16384) that
// left SMs idle, hence the split of K inside a block here.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_config.cuh"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_memory.cuh"
#include "kdecl/kernels/gemm/cuda/gemv/gemv_mma.cuh"

namespace kdecl::kernels::cuda::gemv {

// The 8 values of a chunk as floats.
struct chunk_values {
  float v[chunk_elements];
};
template <class T>
__device__ __forceinline__ chunk_values widen(const uint4& c) {
  const std::uint32_t w[4] = {c.x, c.y, c.z, c.w};
  chunk_values out;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {  // a bf16 is the top half of a float
      out.v[2 * i] = __uint_as_float(w[i] << 16);
      out.v[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
    } else {
      __half2 h;
      std::memcpy(&h, &w[i], sizeof h);
      const float2 f = __half22float2(h);
      out.v[2 * i] = f.x;
      out.v[2 * i + 1] = f.y;
    }
  }
  return out;
}

// One step of K from `k0` (the block's first value of the step): every chunk loaded first, then
// multiplied. `Tail`: the last, partial step (chunks may straddle or pass K).
template <class Cfg, bool Tail>
__device__ __forceinline__ void gemv_step(float (&acc)[Cfg::rows][Cfg::cols], const typename Cfg::ta* a,
                                          const typename Cfg::ta* b, const params<Cfg>& p, int cols_here, int k0,
                                          int warp, int lane) {
  using ta = typename Cfg::ta;
  constexpr int chunks = Cfg::chunks;
  const int first = k0 + warp * Cfg::warp_span + lane * chunk_elements;  // this lane's chunk 0
  uint4 bv[Cfg::cols][chunks], av[Cfg::rows][chunks];
#pragma unroll
  for (int c = 0; c < Cfg::cols; ++c)
#pragma unroll
    for (int j = 0; j < chunks; ++j) {
      const int at = first + j * warp_step;
      bv[c][j] = make_uint4(0, 0, 0, 0);
      if (c < cols_here && (!Tail || at < p.k))
        bv[c][j] = Tail ? load_chunk<true>(b + c * p.ldb, at, p.k) : load_streaming(b + c * p.ldb + at);
    }
#pragma unroll
  for (int r = 0; r < Cfg::rows; ++r)
#pragma unroll
    for (int j = 0; j < chunks; ++j) {
      const int at = first + j * warp_step;
      av[r][j] = make_uint4(0, 0, 0, 0);
      if (r < p.m && (!Tail || at < p.k))
        av[r][j] = Tail ? load_chunk<false>(a + r * p.lda, at, p.k) : load_cached(a + r * p.lda + at);
    }
#pragma unroll
  for (int j = 0; j < chunks; ++j) {
    chunk_values bf[Cfg::cols];
#pragma unroll
    for (int c = 0; c < Cfg::cols; ++c) bf[c] = widen<ta>(bv[c][j]);
#pragma unroll
    for (int r = 0; r < Cfg::rows; ++r) {
      const chunk_values af = widen<ta>(av[r][j]);
#pragma unroll
      for (int c = 0; c < Cfg::cols; ++c)
#pragma unroll
        for (int e = 0; e < chunk_elements; ++e) acc[r][c] = fmaf(af.v[e], bf[c].v[e], acc[r][c]);
    }
  }
}

// One block's columns: the body of gemv_kernel (below).
template <class Cfg>
__device__ __forceinline__ void gemv_block(const params<Cfg>& p) {
  const auto at = block_position_of(p);
  const int lane = at.lane, warp = at.warp;

  float acc[Cfg::rows][Cfg::cols];
#pragma unroll
  for (int r = 0; r < Cfg::rows; ++r)
#pragma unroll
    for (int c = 0; c < Cfg::cols; ++c) acc[r][c] = 0.0f;
  for_each_step<Cfg>(p.k, [&](auto tail, int k0) {
    gemv_step<Cfg, decltype(tail)::value>(acc, at.a, at.b, p, at.cols_here, k0, warp, lane);
  });

  // Each warp's sums, reduced across its lanes, then across the block's warps.
  __shared__ float partial[Cfg::warps][Cfg::rows * Cfg::cols];
#pragma unroll
  for (int r = 0; r < Cfg::rows; ++r)
#pragma unroll
    for (int c = 0; c < Cfg::cols; ++c) {
      float v = acc[r][c];
#pragma unroll
      for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
      if (lane == 0) partial[warp][r * Cfg::cols + c] = v;
    }
  __syncthreads();
  store_block_sums<Cfg>(partial, p, at.batch, at.n0, at.cols_here);
}

// Templated on config<K> (a type): nvcc emits no host launch stub for a class-type constant. The
// body is not generated in a device pass older than the key's arch (cuda/device_pass.cuh).
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads) gemv_kernel(const params<Cfg> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) {
    __trap();
  } else
#endif
  {
    if constexpr (Cfg::mma)
      gemv_mma_block<Cfg>(p);
    else
      gemv_block<Cfg>(p);
  }
}

template <gemm_key K>
struct gemm {
  using cfg = config<K>;

  static std::size_t workspace_bytes(const gemm_problem&) { return 0; }

  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if (!(p.sig == K.sig)) return "problem signature (dtypes, layouts, variant) differs from the kernel's key";
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.m > cfg::rows)
      return "gemv: M = " + std::to_string(p.m) + " is more than the kernel's tile.m = " + std::to_string(cfg::rows) +
             " (every block holds all rows of A)";
    // Positions along K are ints: a step past the last value must still be one.
    if (p.m < 0 || p.n < 0 || p.k < 0 || p.n > int_max || p.k > int_max - cfg::step)
      return "gemv: n must lie in [0, 2^31) and k in [0, 2^31 - tile.k)";
    if (p.batch < 1 || p.batch > 65535) return "gemv: batch must be 1..65535 (grid z)";
    const bool batched = p.batch > 1;
    auto misaligned = [&](const void* ptr, std::int64_t ld, std::int64_t stride) {
      constexpr int e = sizeof(typename cfg::ta);
      return reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0 || (ld * e) % 16 != 0 ||
             (batched && (stride * e) % 16 != 0);
    };
    if (misaligned(args.a, p.lda, p.stride_a)) return "gemv: A's pointer, lda or stride_a not 16-byte aligned";
    if (misaligned(args.b, p.ldb, p.stride_b)) return "gemv: B's pointer, ldb or stride_b not 16-byte aligned";
    if (args.c == nullptr || reinterpret_cast<std::uintptr_t>(args.c) % sizeof(typename cfg::tc) != 0)
      return "C: pointer null or not aligned to its element";
    return std::nullopt;
  }

  // What the running environment must provide; checked by run(), not why_not(), so that
  // selection also works offline.
  static std::optional<std::string> device_reason() {
    return device_shortfall("gemv", {least_device_major(cfg::algo.arch), 0, /*exact=*/false, 0});
  }

  static status run(const gemm_problem& p, const gemm_args& args, void* stream) {
    if (auto why = why_not(p, args)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    if (p.m == 0 || p.n == 0) return status::ok();
    params<cfg> kp{};
    kp.a = static_cast<const typename cfg::ta*>(args.a);
    kp.b = static_cast<const typename cfg::ta*>(args.b);
    kp.c = static_cast<typename cfg::tc*>(args.c);
    kp.lda = p.lda;
    kp.ldb = p.ldb;
    kp.ldc = p.ldc;
    kp.stride_a = p.stride_a;
    kp.stride_b = p.stride_b;
    kp.stride_c = p.stride_c;
    kp.m = int(p.m);
    kp.n = int(p.n);
    kp.k = int(p.k);
    kp.alpha = args.alpha;
    kp.beta = args.beta;
    const dim3 grid(unsigned((p.n + cfg::cols - 1) / cfg::cols), 1, unsigned(p.batch));
    gemv_kernel<cfg><<<grid, cfg::threads, 0, static_cast<cudaStream_t>(stream)>>>(kp);
    const cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) return status::error(std::string("gemv launch: ") + cudaGetErrorString(e));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::gemv
