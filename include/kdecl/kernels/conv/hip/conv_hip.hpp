// kdecl::kernels::hip::conv<K>: the AMD (CDNA2 gfx90a, CDNA3 gfx942) grouped convolution, every
// direction an implicit GEMM on the HIP GEMM's pieces (kernels/gemm/hip/): its tile loaders
// gather the operands (load_gathered, through conv_hip_operands.hpp's sources), its pipelines
// and MFMA warp tiles multiply them, its epilogues store C (through a pixel map where C's rows
// are not evenly strided). Compiled for gfx90a and gfx940; never run (no AMD GPU is available
// to this project): the host tests check its operand and row maps against the reference
// (tests/unit/conv_hip_operands_test.cpp), the arch tables against its rules.
//
//   fwd         grid (tiles, 1, G)       C = output; the fused epilogue is the GEMM's multi_d
//                                        (D0 the bias, leading dimension 0; D1 the residual)
//   bwd_data    grid (tiles, phases, G)  one implicit GEMM per stride phase (bwd_data_phase.hpp),
//                                        no multiply by an inserted zero; a phase no tap reaches
//                                        writes zeros
//   bwd_weight  grid (tiles, splits, G)  the depth N x output pixels split into ranges of whole k
//                                        tiles (bwd_weight_gpu_splits); with more than one, each
//                                        writes fp32 partials to the workspace and a second
//                                        kernel adds them in split order (deterministic)
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_phase.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"
#include "kdecl/kernels/conv/hip/conv_hip_operands.hpp"
#include "kdecl/kernels/conv/hip/conv_hip_rules.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/gemm/hip/block_gemm.hpp"
#include "kdecl/kernels/gemm/hip/epilogue_hip.hpp"
#include "kdecl/kernels/gemm/hip/tile_loader.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"

namespace kdecl::kernels::hip {

// The loaders of one gathered operand: P rows (tile.m for A, tile.n for B) of tile.k, Vec
// elements per access, k-contiguous or transposed, into the GEMM's LDS layout.
template <gemm_key G, dtype D, int P, int LdsRow, int Vec, bool KContiguous>
using conv_loader = tile_loader<D, G.algo.arch, P, G.algo.tile.k, LdsRow, Vec * int(sizeof(storage_t<D>)),
                                geometry_of(G).threads, KContiguous, true, true>;

// One workgroup's share of a convolution's implicit GEMM: its waves, accumulators and loaders.
template <grouped_conv_key K, gemm_key G>
struct conv_block {
  using blk = block_gemm<G>;
  static constexpr hip_gemm_geometry geo = geometry_of(G);
  static constexpr mnk tile = G.algo.tile;
  static constexpr conv_hip_gathers vec = conv_hip_gather_vectors(K);
  using loader_a = conv_loader<G, G.sig.a, tile.m, geo.lds_row_a, vec.a, G.sig.lay.a == layout::row>;
  using loader_b = conv_loader<G, G.sig.b, tile.n, geo.lds_row_b, vec.b, G.sig.lay.b == layout::col>;

  int wave;
  typename blk::wave_place w;
  wave_accumulators<G> acc;

  __device__ conv_block() {
    const int tid = static_cast<int>(threadIdx.x);
    wave = __builtin_amdgcn_readfirstlane(tid / wave_size);
    w = blk::place_of(tid, wave);
    acc.clear();
  }

  // Accumulates k tiles [first, last) of A (source sa over tensor a) times B (sb over b),
  // for the block tile whose first row is m0 and first column n0.
  template <class SourceA, class SourceB>
  __device__ void multiply(const storage_t<G.sig.a>* a, const SourceA& sa, const storage_t<G.sig.b>* b,
                           const SourceB& sb, int m0, int n0, int first, int last, unsigned char* smem) {
    loader_a la;
    loader_b lb;
    typename loader_a::template gather_lines<SourceA> lines_a;
    typename loader_b::template gather_lines<SourceB> lines_b;
    loader_a::prepare(sa, m0, w.tid, lines_a);
    loader_b::prepare(sb, n0, w.tid, lines_b);
    blk::run_pipeline(la, lb, last - first, [&](int kt) {
      la.load_gathered(a, sa, lines_a, (first + kt) * tile.k, w.tid);
      lb.load_gathered(b, sb, lines_b, (first + kt) * tile.k, w.tid);
    }, smem, acc, w);
  }

  template <gemm_key C, class RowMap>
  __device__ void store(const output_view<C, RowMap>& out, int m0, int n0, unsigned char* smem) const {
    if constexpr (C.algo.epi == epilogue::direct)
      epilogue_direct<C>(out, acc, m0 + w.row, n0 + w.col, w.lane);
    else
      epilogue_cshuffle<C>(out, acc, m0 + w.row, n0 + w.col, w.lane, wave, smem);
  }
};

// The tile a block computes: blockIdx.x over tiles_m x tiles_n, n fastest.
struct block_tile_of {
  int m0, n0;
};
template <mnk Tile>
__device__ block_tile_of block_tile(int n_extent) {
  const int tiles_n = (n_extent + Tile.n - 1) / Tile.n;
  const int t = static_cast<int>(blockIdx.x);
  return {t / tiles_n * Tile.m, t % tiles_n * Tile.n};
}

// ---- kernel arguments -------------------------------------------------------------------------

struct conv_hip_fwd_params {
  const void* in;
  const void* wei;
  void* out;
  const void* d[2];                  // the fused epilogue's bias and residual, in the key's order
  conv_gather_geometry geo;          // the im2col gather (m = N x output pixels, k = taps x C/G)
  long long in_g, wei_g, out_g;      // group strides (elements)
  long long d_g[2];
  long long wei_k;                   // between output channels' filters
  int kg, ldc;                       // K/G (the GEMM's N), the output's pixel stride
  int ldd[2];
};

struct conv_hip_bwd_data_params {
  const void* dy;
  const void* wei;
  void* dx;
  bwd_data_geometry geo;
  long long dy_g, wei_g, dx_g;
};

struct conv_hip_bwd_weight_params {
  const void* dy;
  const void* in;
  void* dw;                          // dW, or the fp32 partials [split][group][K/G][taps x C/G]
  conv_gather_geometry geo;          // the forward gather over X (m = the depth, k = dW's columns)
  dy_pixels_source dy_src;           // dY, without its group offset
  long long dy_g, in_g, dw_g;
  int kg, ldw, splits;               // K/G, dW's output-channel stride, depth ranges
};

// ---- kernels ----------------------------------------------------------------------------------

template <grouped_conv_key K>
__global__ void __launch_bounds__(geometry_of(conv_hip_gemm_key(K)).threads) conv_hip_fwd_kernel(conv_hip_fwd_params p) {
  if constexpr (compiling_for == K.algo.arch) {
    constexpr gemm_key G = conv_hip_gemm_key(K);
    using block = conv_block<K, G>;
    using T = storage_t<K.sig.in>;
    __shared__ __attribute__((aligned(16))) unsigned char smem[block::geo.lds_bytes];
    const block_tile_of t = block_tile<G.algo.tile>(p.kg);
    const long long g = blockIdx.z;

    block b;
    const int k_tiles = (p.geo.k + G.algo.tile.k - 1) / G.algo.tile.k;
    b.multiply(static_cast<const T*>(p.in) + g * p.in_g, im2col_rows_source{&p.geo},
               static_cast<const T*>(p.wei) + g * p.wei_g, filter_rows_source{p.kg, p.geo.k, p.wei_k}, t.m0, t.n0,
               0, k_tiles, smem);

    output_view<G> out;
    out.c = static_cast<T*>(p.out) + g * p.out_g;
#pragma unroll
    for (int i = 0; i < G.sig.num_d; ++i) {
      out.d[i] = static_cast<const T*>(p.d[i]) + g * p.d_g[i];
      out.ldd[i] = p.ldd[i];
    }
    out.ldc = p.ldc;
    out.m = p.geo.m;
    out.n = p.kg;
    out.alpha = 1.0f;
    out.beta = 0.0f;
    b.store(out, t.m0, t.n0, smem);
  } else {
    __builtin_trap();  // a code object of another arch: run() checks the device first
  }
}

template <grouped_conv_key K>
__global__ void __launch_bounds__(geometry_of(conv_hip_gemm_key(K)).threads)
    conv_hip_bwd_data_kernel(conv_hip_bwd_data_params p) {
  if constexpr (compiling_for == K.algo.arch) {
    constexpr gemm_key G = conv_hip_gemm_key(K);
    using block = conv_block<K, G>;
    using T = storage_t<K.sig.in>;
    __shared__ __attribute__((aligned(16))) unsigned char smem[block::geo.lds_bytes];
    const bwd_data_phase ph = phase_of(p.geo, static_cast<int>(blockIdx.y));
    const int tiles = (ph.gather.m + G.algo.tile.m - 1) / G.algo.tile.m * ((p.geo.cg + G.algo.tile.n - 1) / G.algo.tile.n);
    if (static_cast<int>(blockIdx.x) >= tiles) return;  // a phase smaller than the grid's largest
    const block_tile_of t = block_tile<G.algo.tile>(p.geo.cg);
    const long long g = blockIdx.z;

    block b;
    const int k_tiles = (ph.gather.k + G.algo.tile.k - 1) / G.algo.tile.k;  // 0: no tap reaches the phase
    b.multiply(static_cast<const T*>(p.dy) + g * p.dy_g, im2col_rows_source{&ph.gather},
               static_cast<const T*>(p.wei) + g * p.wei_g, phase_weights_source{&p.geo, &ph}, t.m0, t.n0, 0, k_tiles,
               smem);

    output_view<G, phase_rows_map> out;
    out.c = static_cast<T*>(p.dx) + g * p.dx_g;
    out.rows = phase_rows_map{&p.geo, &ph};
    out.ldc = 0;
    out.m = ph.gather.m;
    out.n = p.geo.cg;
    out.alpha = 1.0f;
    out.beta = 0.0f;
    b.store(out, t.m0, t.n0, smem);
  } else {
    __builtin_trap();
  }
}

// Partial: write fp32 partials of split blockIdx.y (else dW itself, one split).
template <grouped_conv_key K, bool Partial>
__global__ void __launch_bounds__(geometry_of(conv_hip_gemm_key(K)).threads)
    conv_hip_bwd_weight_kernel(conv_hip_bwd_weight_params p) {
  if constexpr (compiling_for == K.algo.arch) {
    constexpr gemm_key G = conv_hip_gemm_key(K);
    constexpr gemm_key C = Partial ? conv_hip_partial_key(K) : G;
    using block = conv_block<K, G>;
    using T = storage_t<K.sig.in>;
    __shared__ __attribute__((aligned(16))) unsigned char smem[block::geo.lds_bytes];
    const block_tile_of t = block_tile<G.algo.tile>(p.geo.k);
    const long long g = blockIdx.z;
    const int split = static_cast<int>(blockIdx.y);

    block b;
    const depth_range r = depth_range_of((p.geo.m + G.algo.tile.k - 1) / G.algo.tile.k, p.splits, split);
    b.multiply(static_cast<const T*>(p.dy) + g * p.dy_g, p.dy_src, static_cast<const T*>(p.in) + g * p.in_g,
               im2col_columns_source{&p.geo}, t.m0, t.n0, r.first, r.last, smem);

    output_view<C> out;
    if constexpr (Partial)
      out.c = static_cast<float*>(p.dw) + (static_cast<long long>(split) * gridDim.z + g) * p.kg * p.geo.k;
    else
      out.c = static_cast<T*>(p.dw) + g * p.dw_g;
    out.ldc = Partial ? p.geo.k : p.ldw;
    out.m = p.kg;
    out.n = p.geo.k;
    out.alpha = 1.0f;
    out.beta = 0.0f;
    b.store(out, t.m0, t.n0, smem);
  } else {
    __builtin_trap();
  }
}

// dW = the sum of the splits' partials, in split order, converted to dW's dtype.
template <grouped_conv_key K>
__global__ void __launch_bounds__(256) conv_hip_sum_partials_kernel(const float* partials, void* dw, int groups,
                                                                     int kg, int columns, int splits, long long dw_g,
                                                                     int ldw) {
  if constexpr (compiling_for == K.algo.arch) {
    using T = storage_t<K.sig.wei>;
    const long long per_split = static_cast<long long>(groups) * kg * columns;
    for (long long e = blockIdx.x * 256ll + threadIdx.x; e < per_split; e += 256ll * gridDim.x) {
      float sum = 0.0f;
      for (int s = 0; s < splits; ++s) sum += partials[s * per_split + e];
      const long long g = e / (static_cast<long long>(kg) * columns), rest = e % (static_cast<long long>(kg) * columns);
      static_cast<T*>(dw)[g * dw_g + rest / columns * ldw + rest % columns] = from_epilogue<K.sig.wei, float>(sum);
    }
  } else {
    __builtin_trap();
  }
}

// ---- the kernel contract (kernels/conv/conv_kernel.hpp) ------------------------------------------

template <grouped_conv_key K>
struct conv {
  static_assert(conv_hip_unsupported_reason(K) == nullptr,
                "key not supported by the HIP convolution: see hip::conv_hip_unsupported_reason(K)");
  static constexpr gemm_key G = conv_hip_gemm_key(K);
  static constexpr hip_gemm_geometry geo = geometry_of(G);

  static std::optional<std::string> why_not(const grouped_conv_problem& p, const grouped_conv_args& a) {
    return conv_hip_problem_reason(K, p, a);
  }

  // bwd_weight's fp32 partials, one set per depth range; none for the other directions.
  static std::size_t workspace_bytes(const grouped_conv_problem& p) {
    if constexpr (K.sig.dir != conv_direction::bwd_weight) {
      return 0;
    } else {
      const int splits = plan_splits(p);
      return splits > 1 ? std::size_t(splits) * partial_elements(p) * sizeof(float) : 0;
    }
  }

  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_arch_mismatch(K.algo.arch)) return status::error(*why);
    const hipStream_t s = static_cast<hipStream_t>(stream);
    if constexpr (K.sig.dir == conv_direction::fwd) return run_fwd(p, a, s);
    else if constexpr (K.sig.dir == conv_direction::bwd_data) return run_bwd_data(p, a, s);
    else return run_bwd_weight(p, a, s);
  }

 private:
  static status launched(const char* what) {
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return status::error(std::string("hip conv ") + what + " launch: " + hipGetErrorString(err));
    return status::ok();
  }

  static unsigned tiles(std::int64_t m, std::int64_t n) {
    return unsigned((m + G.algo.tile.m - 1) / G.algo.tile.m * ((n + G.algo.tile.n - 1) / G.algo.tile.n));
  }

  static status run_fwd(const grouped_conv_problem& p, const grouped_conv_args& a, hipStream_t s) {
    const auto e = p.implicit_gemm();
    if (e.m == 0 || e.n == 0) return status::ok();
    conv_hip_fwd_params kp{};
    kp.in = a.in;
    kp.wei = a.wei;
    kp.out = a.out;
    kp.geo = gather_geometry_of(p);
    kp.in_g = p.in_strides.g;
    kp.wei_g = p.wei_strides.g;
    kp.out_g = p.out_strides.g;
    kp.wei_k = p.wei_strides.n;
    kp.kg = int(e.n);
    kp.ldc = int(p.out_strides.spatial[2]);
    int d = 0;
    if constexpr (K.sig.fuse.bias) {  // K/G values per group, the same for every pixel
      kp.d[d] = a.bias;
      kp.d_g[d] = p.k_per_group();
      kp.ldd[d++] = 0;
    }
    if constexpr (K.sig.fuse.residual) {  // the output's shape and strides
      kp.d[d] = a.residual;
      kp.d_g[d] = p.out_strides.g;
      kp.ldd[d++] = kp.ldc;
    }
    hipLaunchKernelGGL(conv_hip_fwd_kernel<K>, dim3(tiles(e.m, e.n), 1, unsigned(p.g)), dim3(geo.threads), 0, s, kp);
    return launched("fwd");
  }

  static status run_bwd_data(const grouped_conv_problem& p, const grouped_conv_args& a, hipStream_t s) {
    if (p.n == 0 || p.c == 0) return status::ok();
    conv_hip_bwd_data_params kp{};
    kp.dy = a.out;
    kp.wei = a.wei;
    kp.dx = a.in;
    kp.geo = bwd_data_geometry_of(p);
    kp.dy_g = p.out_strides.g;
    kp.wei_g = p.wei_strides.g;
    kp.dx_g = p.in_strides.g;
    unsigned most = 0;
    for (int ph = 0; ph < kp.geo.phases; ++ph) most = std::max(most, tiles(phase_of(kp.geo, ph).gather.m, kp.geo.cg));
    if (most == 0) return status::ok();
    hipLaunchKernelGGL(conv_hip_bwd_data_kernel<K>, dim3(most, unsigned(kp.geo.phases), unsigned(p.g)),
                       dim3(geo.threads), 0, s, kp);
    return launched("bwd_data");
  }

  // Compute units of the current device (where none is found, the arch's reference part's).
  static int compute_units() {
    int device = 0, units = 0;
    if (hipGetDevice(&device) == hipSuccess &&
        hipDeviceGetAttribute(&units, hipDeviceAttributeMultiprocessorCount, device) == hipSuccess && units > 0)
      return units;
    return arch::spec_of(G.algo.arch).sm_count;
  }
  static int plan_splits(const grouped_conv_problem& p) {
    return bwd_weight_gpu_splits(p, G.algo.tile.m, G.algo.tile.n, G.algo.tile.k, compute_units());
  }
  static std::size_t partial_elements(const grouped_conv_problem& p) {
    return std::size_t(p.g) * std::size_t(p.k_per_group()) * std::size_t(p.c_per_group() * p.filter_taps());
  }

  static status run_bwd_weight(const grouped_conv_problem& p, const grouped_conv_args& a, hipStream_t s) {
    const auto e = p.implicit_gemm();  // M = K/G, N = taps x C/G, depth = N x output pixels
    if (e.m == 0 || e.n == 0) return status::ok();
    conv_hip_bwd_weight_params kp{};
    kp.dy = a.out;
    kp.in = a.in;
    kp.geo = gather_geometry_of(p);
    const auto out = p.output_dims();
    kp.dy_src.kg = int(e.m);
    kp.dy_src.pixels = kp.geo.m;
    for (int d = 0; d < 3; ++d) {
      kp.dy_src.out[d] = int(out[std::size_t(d)]);
      kp.dy_src.s[d] = p.out_strides.spatial[std::size_t(d)];
    }
    kp.dy_src.n_stride = p.out_strides.n;
    kp.dy_g = p.out_strides.g;
    kp.in_g = p.in_strides.g;
    kp.dw_g = p.wei_strides.g;
    kp.kg = int(e.m);
    kp.ldw = int(p.wei_strides.n);
    // Split the depth where the workspace holds the partials (a smaller workspace: one range).
    int splits = plan_splits(p);
    if (splits > 1 && (a.workspace == nullptr || a.workspace_bytes < workspace_bytes(p))) splits = 1;
    kp.splits = splits;
    const dim3 grid(tiles(e.m, e.n), unsigned(splits), unsigned(p.g));
    if (splits == 1) {
      kp.dw = a.wei;
      hipLaunchKernelGGL((conv_hip_bwd_weight_kernel<K, false>), grid, dim3(geo.threads), 0, s, kp);
      return launched("bwd_weight");
    }
    kp.dw = a.workspace;
    hipLaunchKernelGGL((conv_hip_bwd_weight_kernel<K, true>), grid, dim3(geo.threads), 0, s, kp);
    if (status st = launched("bwd_weight"); !st.ok()) return st;
    const long long elements = static_cast<long long>(partial_elements(p));
    const unsigned blocks = unsigned(std::min<long long>((elements + 255) / 256, 65535));
    hipLaunchKernelGGL(conv_hip_sum_partials_kernel<K>, dim3(blocks), dim3(256), 0, s,
                       static_cast<const float*>(a.workspace), a.wei, int(p.g), kp.kg, int(e.n), splits,
                       static_cast<long long>(p.wei_strides.g), kp.ldw);
    return launched("bwd_weight partial sums");
  }
};

}  // namespace kdecl::kernels::hip
