// The sm_80 backward-data convolution: dX = dY * W^T as one implicit GEMM per
// (group, stride phase) on the cp_async convolution pipeline (conv_mainloop.cuh:
// the GEMM's swizzled ring and ldmatrix + mma.sync warps).
//
// A stride-s convolution's input positions split into stride phases
// (bwd_data_phase.hpp); each phase is a plain implicit GEMM that visits only the
// filter taps reaching it, so no multiply-add of an inserted zero is ever done.
// Stride 1 (and 1x1 stride 1) is the single phase. All phases of all groups run in
// one launch: grid (tiles of the largest phase, phases, G); a block derives its
// phase's geometry from the problem's, and a phase without taps writes zeros.
//
//   A (M x K) = dY gathered: rows = the phase's dX pixels (n, a), depth = (phase tap, k), k fastest
//               -- the forward im2col operand of a stride-1 gather over dY (im2col_loader.cuh)
//   B (K x N) = weights: row (tap, k) holds the C/G input channels of w[g, k, tap, :]
//   C (M x N) = dX rows of the phase (not evenly strided: phase_rows_epilogue)
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_phase.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_config.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_common.cuh"
#include "kdecl/kernels/conv/cuda/sm80/conv_mainloop.cuh"
#include "kdecl/kernels/conv/cuda/sm80/im2col_loader.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/epilogue.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/block_warp.cuh"

namespace kdecl::kernels::cuda::sm80 {

// B of one phase: tile_k weight rows (phase tap, output channel), each TileN
// input channels wide, copied N-major (as an rrr GEMM's B tile lies).
template <class T, int TileN, int TileK, int Vec, int Threads>
class phase_weight_loader {
 public:
  static constexpr int vec_elems = Vec / int(sizeof(T));
  static constexpr int vecs_per_row = TileN / vec_elems;
  static constexpr int vecs = TileK * vecs_per_row;
  static constexpr int iters = (vecs + Threads - 1) / Threads;
  using layout = swizzled_tile<TileK, TileN * int(sizeof(T))>;
  static_assert(TileN % vec_elems == 0, "a tile row must be a whole number of vectors");

  __device__ phase_weight_loader(const bwd_data_geometry& geo, const bwd_data_phase& ph, const T* wei, int n0, int tid)
      : geo_(geo), ph_(ph), wei_(wei), n0_(n0), tid_(tid) {}

  __device__ void load(std::uint32_t stage, int kt) const {
    // The tap of the tile's first row is decoded once; rows of the same tap (all of them
    // when TileK divides K/G) step by the output-channel stride, the others decode theirs.
    const int kk0 = kt * TileK;
    const int t0 = kk0 / geo_.kg, k0 = kk0 - t0 * geo_.kg;
    const std::int64_t tap0 = kk0 < ph_.gather.k ? phase_weight_offset(geo_, ph_, kk0 - k0) : 0;
#pragma unroll
    for (int it = 0; it < iters; ++it) {
      const int v = tid_ + it * Threads;
      if (vecs % Threads != 0 && v >= vecs) break;
      const int r = v / vecs_per_row;
      const int c = (v % vecs_per_row) * vec_elems;
      const int kk = kk0 + r, col = n0_ + c;
      const T* src = wei_;
      int bytes = 0;
      if (kk < ph_.gather.k && col < geo_.cg) {  // C/G is a multiple of the vector: whole or nothing
        const std::int64_t at = k0 + r < geo_.kg ? tap0 + std::int64_t(k0 + r) * geo_.wei_k
                                                 : phase_weight_offset(geo_, ph_, kk);
        src = wei_ + at + col;
        bytes = Vec;
      }
      cp_async<Vec>(stage + layout::offset(r, c * int(sizeof(T))), src, bytes);
    }
  }

 private:
  const bwd_data_geometry& geo_;
  const bwd_data_phase& ph_;
  const T* wei_;
  int n0_, tid_;
};

template <class Cfg>
struct conv_bwd_data_params {
  const typename Cfg::ta* dy;   // group 0
  const typename Cfg::tb* wei;  // group 0
  typename Cfg::tc* dx;         // group 0
  bwd_data_geometry geo;
  std::int64_t dy_g, wei_g, dx_g;  // group strides (elements)
  bool rows_aligned;               // every dX pixel starts on a 16-byte boundary
};

template <class Cfg, int VecDy, int VecWei>
__device__ __forceinline__ void conv_bwd_data_kernel_block(const conv_bwd_data_params<Cfg>& p) {
  using ta = typename Cfg::ta;
  using tb = typename Cfg::tb;
  extern __shared__ __align__(128) unsigned char smem[];

  const bwd_data_phase ph = phase_of(p.geo, int(blockIdx.y));
  const int tiles_m = (ph.gather.m + Cfg::tile_m - 1) / Cfg::tile_m;
  const int tiles_n = (p.geo.cg + Cfg::tile_n - 1) / Cfg::tile_n;
  if (int(blockIdx.x) >= tiles_m * tiles_n) return;  // a smaller phase than the grid's largest
  const int tid = int(threadIdx.x), lane = tid & 31, warp = tid >> 5;
  int tm, tn;
  block_tile(int(blockIdx.x), tiles_m, tiles_n, tm, tn);
  const int m0 = tm * Cfg::tile_m, n0 = tn * Cfg::tile_n;
  const std::int64_t g = blockIdx.z;
  const int k_tiles = (ph.gather.k + Cfg::tile_k - 1) / Cfg::tile_k;  // 0: a phase no tap reaches

  block_warp<Cfg> w(lane, (warp % Cfg::warps_m) * Cfg::warp_rows, (warp / Cfg::warps_m) * Cfg::warp_cols);
  const std::uint32_t ring = smem_address(smem);
  const std::uint32_t b_ring = ring + Cfg::stages * Cfg::a_stage_bytes;
  const im2col_loader<ta, Cfg::tile_m, Cfg::tile_k, VecDy, Cfg::threads> load_a(ph.gather, p.dy + g * p.dy_g, m0, tid);
  const phase_weight_loader<tb, Cfg::tile_n, Cfg::tile_k, VecWei, Cfg::threads> load_b(p.geo, ph, p.wei + g * p.wei_g,
                                                                                        n0, tid);
  conv_mainloop<Cfg>(w, ring, k_tiles, [&](int s, int t) {
    load_a.load(ring + s * Cfg::a_stage_bytes, t);
    load_b.load(b_ring + s * Cfg::b_stage_bytes, t);
  });

  typename Cfg::tc* dx = p.dx + g * p.dx_g;
  auto row_at = [&](int m) { return dx + phase_row_offset(p.geo, ph, m); };
  if constexpr (Cfg::cshuffle) {
    cp_async_wait<0>();
    __syncthreads();  // the ring becomes the staging buffer
    mapped_rows_cshuffle<Cfg>(w, row_at, ph.gather.m, p.geo.cg, m0, n0, smem, tid, p.rows_aligned);
  } else {
    mapped_rows_direct<Cfg>(w, row_at, ph.gather.m, p.geo.cg, m0, n0);
  }
}

// The kernel: its body (conv_bwd_data_kernel_block) is not generated in a device pass older
// than the key's arch, whose code would never run (cuda/device_pass.cuh).
template <class Cfg, int VecDy, int VecWei>
__global__ void __launch_bounds__(Cfg::threads) conv_bwd_data_kernel(const __grid_constant__ conv_bwd_data_params<Cfg> p) {
#if defined(__CUDA_ARCH__)
  if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) {
    __trap();
  } else
#endif
  {
    conv_bwd_data_kernel_block<Cfg, VecDy, VecWei>(p);
  }
}

template <grouped_conv_key K>
struct conv_bwd_data {
  static_assert(K.sig.dir == conv_direction::bwd_data && conv_bwd_unsupported_reason(K) == nullptr,
                "key not supported by the sm80 backward-data convolution: see sm80::conv_bwd_unsupported_reason(K)");
  static constexpr gemm_key G = conv_bwd_gemm_key(K);
  using cfg = config<G>;
  using ta = typename cfg::ta;
  static constexpr int vec_dy = K.algo.vector_out * int(sizeof(ta));
  static constexpr int vec_wei = K.algo.vector_wei * int(sizeof(ta));

  static std::size_t workspace_bytes(const grouped_conv_problem&) { return 0; }

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    if (auto why = signature_reason<K>(p)) return why;
    if (!a.in || !a.wei || !a.out) return std::string("a tensor pointer (in, wei or out) is null");
    constexpr std::int64_t int_max = std::numeric_limits<int>::max();
    if (p.n * p.input_pixels() > int_max || p.k_per_group() * p.filter_taps() > int_max)
      return std::string("cp_async conv: N x input pixels and K/G x taps must be < 2^31");
    if (p.g > 65535) return std::string("cp_async conv: G must be at most 65535 (grid z)");
    if (p.stride_dims[0] * p.stride_dims[1] * p.stride_dims[2] > 65535)
      return std::string("cp_async bwd_data: the product of the strides (phases) must be at most 65535 (grid y)");
    if (auto why = sizes_reason(p)) return why;
    if (p.k_per_group() % K.algo.vector_out != 0 || p.c_per_group() % K.algo.vector_wei != 0)
      return std::string("cp_async bwd_data: K/G and C/G must be multiples of the dY and weight vectors");
    auto misaligned = [](const void* ptr, int bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes != 0; };
    if (misaligned(a.out, vec_dy) || misaligned(a.wei, vec_wei))
      return std::string("cp_async bwd_data: dY (out) and wei must be aligned to the kernel's vector widths");
    const auto& so = p.out_strides;
    for (std::int64_t stride : {so.n, so.g, so.spatial[0], so.spatial[1], so.spatial[2]})
      if (stride % K.algo.vector_out != 0) return std::string("cp_async bwd_data: dY strides must be multiples of its vector");
    const auto& sw = p.wei_strides;
    for (std::int64_t stride : {sw.n, sw.g, sw.spatial[0], sw.spatial[1], sw.spatial[2]})
      if (stride % K.algo.vector_wei != 0)
        return std::string("cp_async bwd_data: weight strides must be multiples of the weight vector");
    return std::nullopt;
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason<cfg>()) return status::error(*why);
    if (p.n == 0 || p.c == 0) return status::ok();
    auto kernel = conv_bwd_data_kernel<cfg, vec_dy, vec_wei>;
    if (auto err = allow_smem(kernel, cfg::smem_bytes)) return status::error(*err);
    conv_bwd_data_params<cfg> kp{};
    kp.dy = static_cast<const ta*>(a.out);
    kp.wei = static_cast<const typename cfg::tb*>(a.wei);
    kp.dx = static_cast<typename cfg::tc*>(a.in);
    kp.geo = bwd_data_geometry_of(p);
    kp.dy_g = p.out_strides.g;
    kp.wei_g = p.wei_strides.g;
    kp.dx_g = p.in_strides.g;
    const int run = 16 / int(sizeof(ta));
    kp.rows_aligned = reinterpret_cast<std::uintptr_t>(a.in) % 16 == 0 && p.in_strides.n % run == 0 &&
                      p.in_strides.g % run == 0 && p.in_strides.spatial[0] % run == 0 &&
                      p.in_strides.spatial[1] % run == 0 && p.in_strides.spatial[2] % run == 0;
    std::int64_t tiles = 0;
    const std::int64_t tiles_n = (p.c_per_group() + cfg::tile_n - 1) / cfg::tile_n;
    for (int ph = 0; ph < kp.geo.phases; ++ph)
      tiles = std::max<std::int64_t>(tiles, (phase_of(kp.geo, ph).gather.m + cfg::tile_m - 1) / cfg::tile_m * tiles_n);
    if (tiles == 0) return status::ok();
    const dim3 grid(unsigned(tiles), unsigned(kp.geo.phases), unsigned(p.g));
    kernel<<<grid, cfg::threads, cfg::smem_bytes, static_cast<cudaStream_t>(stream)>>>(kp);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return status::error(std::string("cp_async bwd_data launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels::cuda::sm80
