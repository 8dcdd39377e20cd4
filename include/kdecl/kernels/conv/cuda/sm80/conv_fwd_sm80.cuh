// The sm_80 forward convolution: the cp_async GEMM's main loop and pieces
// (kernels/gemm/cuda/sm80/: the swizzled cp.async ring, tile_loader for the
// weights, ldmatrix + mma.sync warps, direct and cshuffle epilogues) on the
// implicit GEMM of each group, with the im2col operand gathered by cp.async
// straight from the input (im2col_loader.cuh). One grid z slice per group.
//
//   A (M x K) = im2col(input of group g), M = N x output pixels, K = C/G x taps
//   B (K x N) = weights of group g (every output channel's taps x C/G contiguous)
//   C (M x N) = output of group g, pixels evenly strided
//
// A fused epilogue (the key's conv_fusion) runs on the GEMM's multi_d epilogues: D tensor 0 the
// bias (leading dimension 0: every pixel reads the group's K/G values), then the residual (the
// output's strides: leading dimension ldc, the output's group stride).
//
// Entry point: sm80::conv_fwd<K> with the conv_kernel contract (kernels/conv/conv_kernel.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/kernels/conv/implicit_gemm_fwd_problem.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_fwd_config.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_mainloop.cuh"
#include "kdecl/kernels/conv/cuda/sm80/im2col_loader.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/epilogue.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/tile_loader.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_warp.cuh"

namespace kdecl::kernels::cuda::sm80 {

template <class Cfg>
struct conv_fwd_params {
  using out_type = typename Cfg::tc;
  const typename Cfg::ta* in;   // group 0
  const typename Cfg::tb* wei;  // group 0
  output_view<Cfg> out;         // group 0; ldc = the output's pixel stride
  conv_gather_geometry geo;
  std::int64_t in_g, wei_g, out_g;  // group strides (elements)
  std::int64_t d_g[output_view<Cfg>::d_slots];  // the fused epilogue's inputs' group strides
  std::int64_t wei_k;               // stride between output channels' filters
  int kg;                           // output channels per group (the GEMM's N)
};

// One block's tiles: the body of conv_fwd_kernel (below). Templated on the GEMM config and the
// two gather widths (types and ints, not the key: nvcc cannot emit host launch stubs for
// class-type template arguments).
template <class Cfg, int VecIn, int VecWei>
__device__ __forceinline__ void conv_fwd_kernel_block(const conv_fwd_params<Cfg>& p) {
  using ta = typename Cfg::ta;
  using tb = typename Cfg::tb;
  extern __shared__ __align__(128) unsigned char smem[];

  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  const int tiles_m = (p.geo.m + Cfg::tile_m - 1) / Cfg::tile_m;
  const int tiles_n = (p.kg + Cfg::tile_n - 1) / Cfg::tile_n;
  int tm, tn;
  block_tile(int(blockIdx.x), tiles_m, tiles_n, tm, tn);
  const int m0 = tm * Cfg::tile_m, n0 = tn * Cfg::tile_n;
  const std::int64_t g = blockIdx.z;
  const int k_tiles = (p.geo.k + Cfg::tile_k - 1) / Cfg::tile_k;

  block_warp<Cfg> w(lane, (warp % Cfg::warps_m) * Cfg::warp_rows, (warp / Cfg::warps_m) * Cfg::warp_cols);

  const std::uint32_t ring = smem_address(smem);
  const std::uint32_t b_ring = ring + Cfg::stages * Cfg::a_stage_bytes;
  const im2col_loader<ta, Cfg::tile_m, Cfg::tile_k, VecIn, Cfg::threads> load_a(p.geo, p.in + g * p.in_g, m0, tid);
  const tile_loader<tb, true, Cfg::tile_n, Cfg::tile_k, VecWei, Cfg::threads, true, true> load_b(
      p.wei + g * p.wei_g, p.wei_k, n0, p.kg, p.geo.k, tid);
  conv_mainloop<Cfg>(w, ring, k_tiles, [&](int s, int t) {
    load_a.load(ring + s * Cfg::a_stage_bytes, t);
    if (t + 1 < k_tiles) load_b.template load<false>(b_ring + s * Cfg::b_stage_bytes, t);
    else load_b.template load<true>(b_ring + s * Cfg::b_stage_bytes, t);
  });

  output_view<Cfg> out = p.out;
  out.c += g * p.out_g;
#pragma unroll
  for (int t = 0; t < Cfg::num_d; ++t) out.d[t] += g * p.d_g[t];
  if constexpr (Cfg::cshuffle) {
    cp_async_wait<0>();
    __syncthreads();  // the ring becomes the staging buffer
    cshuffle_epilogue<Cfg>(w, out, m0, n0, smem, tid);
  } else {
    direct_epilogue<Cfg>(w, out, m0, n0);
  }
}

// The kernel: its body (conv_fwd_kernel_block) is not generated in a device pass older
// than the key's arch, whose code would never run (cuda/device_pass.cuh).
template <class Cfg, int VecIn, int VecWei>
__global__ void __launch_bounds__(Cfg::threads) conv_fwd_kernel(const __grid_constant__ conv_fwd_params<Cfg> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) {
    __trap();
  } else
#endif
  {
    conv_fwd_kernel_block<Cfg, VecIn, VecWei>(p);
  }
}

template <grouped_conv_key K>
struct conv_fwd {
 private:
  // The fused epilogue's D tensors in the key's order: the bias (ldd 0, a group's K/G values
  // apart), then the residual (the output's pixel and group strides).
  template <class Params>
  static void set_fused_inputs(Params& kp, const grouped_conv_problem& p, const grouped_conv_args& a) {
    using tc = typename Params::out_type;
    int t = 0;
    if constexpr (K.sig.fuse.bias) {
      kp.out.d[t] = static_cast<const tc*>(a.bias);
      kp.out.ldd[t] = 0;
      kp.d_g[t++] = p.k_per_group();
    }
    if constexpr (K.sig.fuse.residual) {
      kp.out.d[t] = static_cast<const tc*>(a.residual);
      kp.out.ldd[t] = p.out_strides.spatial[2];
      kp.d_g[t++] = p.out_strides.g;
    }
    (void)t;
  }

 public:
  static_assert(conv_fwd_unsupported_reason(K) == nullptr,
                "key not supported by the sm80 forward convolution: see sm80::conv_fwd_unsupported_reason(K)");
  static constexpr gemm_key G = conv_fwd_gemm_key(K);
  using cfg = config<G>;
  using ta = typename cfg::ta;
  static constexpr int vec_in = K.algo.vector_in * int(sizeof(ta));
  static constexpr int vec_wei = K.algo.vector_wei * int(sizeof(ta));

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return implicit_gemm_fwd_reason(K, p, a, "cp_async conv",
                                    {K.algo.vector_in, K.algo.vector_wei, K.algo.vector_out, cfg::vec});
  }

  // What the running environment must provide (checked by run(), so selection works offline).
  static std::optional<std::string> device_reason() {
    return device_shortfall("cp_async conv", {least_device_major(cfg::algo.arch), 0, /*exact=*/false, cfg::smem_bytes});
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();

    auto kernel = conv_fwd_kernel<cfg, vec_in, vec_wei>;
    if (cfg::smem_bytes > 48 * 1024) {
      const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, cfg::smem_bytes);
      if (err != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(err));
    }
    conv_fwd_params<cfg> kp{};
    kp.in = static_cast<const ta*>(a.in);
    kp.wei = static_cast<const typename cfg::tb*>(a.wei);
    kp.out.c = static_cast<typename cfg::tc*>(a.out);
    kp.out.ldc = p.out_strides.spatial[2];
    set_fused_inputs(kp, p, a);
    kp.out.m = int(e.m);
    kp.out.n = int(e.n);
    kp.out.alpha = 1.0f;
    kp.out.beta = 0.0f;
    kp.geo = gather_geometry_of(p);
    kp.in_g = p.in_strides.g;
    kp.wei_g = p.wei_strides.g;
    kp.out_g = p.out_strides.g;
    kp.wei_k = p.wei_strides.n;
    kp.kg = int(e.n);

    const unsigned tiles =
        unsigned(((e.m + cfg::tile_m - 1) / cfg::tile_m) * ((e.n + cfg::tile_n - 1) / cfg::tile_n));
    const dim3 grid(tiles, 1, unsigned(p.g));
    kernel<<<grid, cfg::threads, cfg::smem_bytes, static_cast<cudaStream_t>(stream)>>>(kp);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return status::error(std::string("cp_async conv launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm80
