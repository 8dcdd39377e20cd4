// The __global__ HIP GEMM kernel: one workgroup per (tile.m x tile.n) block of C,
// grid (n tiles, m tiles, batch slices); a block walks batch entries
// blockIdx.z, blockIdx.z + gridDim.z, ... so any batch count fits the grid.
#pragma once

#include <hip/hip_runtime.h>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/hip/block_gemm.hpp"
#include "kdecl/kernels/gemm/hip/epilogue_hip.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_params.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"

namespace kdecl::kernels::hip {

template <gemm_key K>
__global__ void __launch_bounds__(geometry_of(K).threads) gemm_hip_kernel(gemm_hip_params p) {
  if constexpr (compiling_for == K.algo.arch) {
    using blk = block_gemm<K>;
    using out_t = output_view<K>;
    using C = typename out_t::C;
    constexpr hip_gemm_geometry geo = geometry_of(K);
    __shared__ __attribute__((aligned(16))) unsigned char smem[geo.lds_bytes];

    const int tid = static_cast<int>(threadIdx.x);
    const int wave = __builtin_amdgcn_readfirstlane(tid / wave_size);  // uniform: keep it in a scalar register
    const typename blk::wave_place w = blk::place_of(tid, wave);
    const int m0 = static_cast<int>(blockIdx.y) * K.algo.tile.m;
    const int n0 = static_cast<int>(blockIdx.x) * K.algo.tile.n;

    for (int batch = static_cast<int>(blockIdx.z); batch < p.batch; batch += static_cast<int>(gridDim.z)) {
      if (batch != static_cast<int>(blockIdx.z)) __syncthreads();  // LDS of the previous entry is free
      const auto* a = static_cast<const typename blk::A*>(p.a) + batch * p.stride_a;
      const auto* b = static_cast<const typename blk::B*>(p.b) + batch * p.stride_b;

      wave_accumulators<K> acc;
      acc.clear();

      blk::main_loop(a, b, p, m0, n0, smem, acc, w);

      out_t out;
      out.c = static_cast<C*>(p.c) + batch * p.stride_c;
#pragma unroll
      for (int i = 0; i < K.sig.num_d; ++i) out.d[i] = static_cast<const C*>(p.d[i]) + batch * p.stride_d;
      out.ldc = p.ldc;
#pragma unroll
      for (int i = 0; i < K.sig.num_d; ++i) out.ldd[i] = p.ldd;
      out.m = p.m;
      out.n = p.n;
      out.alpha = p.alpha;
      out.beta = p.beta;
      if constexpr (K.algo.epi == epilogue::direct)
        epilogue_direct<K>(out, acc, m0 + w.row, n0 + w.col, w.lane);
      else
        epilogue_cshuffle<K>(out, acc, m0 + w.row, n0 + w.col, w.lane, wave, smem);
    }
  } else {
    // Code object of another arch: run() checks the device arch first, so this never executes.
    __builtin_trap();
  }
}

}  // namespace kdecl::kernels::hip
