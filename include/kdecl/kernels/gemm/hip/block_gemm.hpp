// The main loop of one workgroup: K tiles through LDS into MFMA accumulators.
//
// Pipelines (the key's `stages` is the LDS tile count):
//  * mem    (1 LDS tile, no prefetch): load -> LDS -> barrier -> MFMAs -> barrier.
//           Global latency is hidden only by other resident waves; fewest
//           registers, meant for small, memory-bound tiles.
//  * compv3 (1 LDS tile + register prefetch): after the current tile reaches
//           LDS, the loads of the next one are issued and stay in flight while
//           the MFMAs consume the current tile. Two barriers per K tile.
//  * compv4 (2 LDS tiles + register prefetch): the next tile is loaded during
//           the MFMAs and written to the other LDS buffer right after them; one
//           barrier per K tile. Writing buffer (t+1)%2 in step t is safe because
//           its last readers (step t-1) all passed that step's barrier.
// Scheduler: intrawave, i.e. each wave interleaves its own loads and MFMAs in
// program order and the compiler schedules within the wave.
//
// MFMA step: each lane reads, per warp tile, one fragment of
// k_repeat * k_per_lane contiguous k values (lane group g = lane / mn covers k
// g*fragment .. g*fragment+fragment-1); instruction j consumes the j-th
// k_per_lane slice. A and B use the same k assignment, so the sum is exact.
#pragma once

#include <hip/hip_runtime.h>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/hip/epilogue_hip.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_params.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"
#include "kdecl/kernels/hip/mfma.hpp"
#include "kdecl/kernels/hip/raw_bytes.hpp"
#include "kdecl/kernels/gemm/hip/tile_loader.hpp"

namespace kdecl::kernels::hip {

template <gemm_key K>
struct block_gemm {
  static constexpr hip_gemm_geometry geo = geometry_of(K);
  static constexpr mnk tile = K.algo.tile;
  static constexpr int mn = K.algo.warp_tile.m;
  static constexpr int warp_k = K.algo.warp_tile.k;
  using mfma = mfma_op<K.sig.a, K.algo.arch, mn>;
  using A = storage_t<K.sig.a>;
  using B = storage_t<K.sig.b>;
  using loader_a = tile_loader<K.sig.a, K.algo.arch, tile.m, tile.k, geo.lds_row_a, K.algo.vector_bytes, geo.threads,
                               K.sig.lay.a == layout::row, K.algo.pad_m == tristate::yes, K.algo.pad_k == tristate::yes>;
  using loader_b = tile_loader<K.sig.b, K.algo.arch, tile.n, tile.k, geo.lds_row_b, K.algo.vector_bytes, geo.threads,
                               K.sig.lay.b == layout::col, K.algo.pad_n == tristate::yes, K.algo.pad_k == tristate::yes>;
  static constexpr int a_tile_bytes = tile.m * geo.lds_row_a * geo.a_bytes;
  static constexpr int buffer_bytes = a_tile_bytes + tile.n * geo.lds_row_b * geo.b_bytes;

  // Where this wave sits in the block tile, and which lane it is.
  struct wave_place {
    int tid, lane, row, col;  // row/col: first element of the wave's sub-tile, block-relative
  };
  // Thread tid of wave `wave` (uniform: the caller keeps it in a scalar register).
  __device__ static wave_place place_of(int tid, int wave) {
    return {tid, tid % wave_size, (wave / K.algo.warps.n) * geo.wave_m, (wave % K.algo.warps.n) * geo.wave_n};
  }

  // MFMAs over one LDS tile pair.
  __device__ static void consume(const A* lds_a, const B* lds_b, wave_accumulators<K>& acc, const wave_place& w) {
    constexpr int fragment = geo.fragment_bytes;
    const int lane_row = w.lane % mn;
    const int lane_k = (w.lane / mn) * geo.inst.k_per_lane * geo.k_repeat;
#pragma unroll
    for (int ks = 0; ks < tile.k / warp_k; ++ks) {
      raw_bytes<fragment> fa[geo.rep_m];
      raw_bytes<fragment> fb[geo.rep_n];
#pragma unroll
      for (int rm = 0; rm < geo.rep_m; ++rm)
        fa[rm].words =
            load_bytes<fragment>(lds_a + (w.row + rm * mn + lane_row) * geo.lds_row_a + ks * warp_k + lane_k).words;
#pragma unroll
      for (int rn = 0; rn < geo.rep_n; ++rn)
        fb[rn].words =
            load_bytes<fragment>(lds_b + (w.col + rn * mn + lane_row) * geo.lds_row_b + ks * warp_k + lane_k).words;
#pragma unroll
      for (int j = 0; j < geo.k_repeat; ++j)
#pragma unroll
        for (int rm = 0; rm < geo.rep_m; ++rm)
#pragma unroll
          for (int rn = 0; rn < geo.rep_n; ++rn)
            acc.tile[rm][rn] = mfma::run(fa[rm].template get<typename mfma::operand_t>(j),
                                         fb[rn].template get<typename mfma::operand_t>(j), acc.tile[rm][rn]);
    }
  }

  // The pipeline over k_tiles K tiles whose operand tiles loaders la and lb move into LDS
  // (fetch(kt): their load() calls for K tile kt; then their store() into the LDS tile pair).
  // The GEMM's loaders read matrices (main_loop below); a convolution's gather its operands
  // (kernels/conv/hip/), the LDS layout and the MFMAs being the same.
  template <class LoaderA, class LoaderB, class Fetch>
  __device__ static void run_pipeline(LoaderA& la, LoaderB& lb, int k_tiles, Fetch&& fetch, unsigned char* smem,
                                  wave_accumulators<K>& acc, const wave_place& w) {
    auto lds_a = [&](int buf) { return reinterpret_cast<A*>(smem + buf * buffer_bytes); };
    auto lds_b = [&](int buf) { return reinterpret_cast<B*>(smem + buf * buffer_bytes + a_tile_bytes); };
    auto stash = [&](int buf) {
      la.store(lds_a(buf), w.tid);
      lb.store(lds_b(buf), w.tid);
    };

    if constexpr (K.algo.pipe == pipeline::mem) {
      for (int kt = 0; kt < k_tiles; ++kt) {
        fetch(kt);
        stash(0);
        __syncthreads();
        consume(lds_a(0), lds_b(0), acc, w);
        __syncthreads();
      }
    } else if constexpr (K.algo.pipe == pipeline::compv3) {
      if (k_tiles > 0) fetch(0);
      for (int kt = 0; kt < k_tiles; ++kt) {
        stash(0);
        __syncthreads();
        if (kt + 1 < k_tiles) fetch(kt + 1);  // in flight during the MFMAs below
        consume(lds_a(0), lds_b(0), acc, w);
        __syncthreads();
      }
    } else {
      static_assert(K.algo.pipe == pipeline::compv4);
      if (k_tiles > 0) {
        fetch(0);
        stash(0);
        __syncthreads();
      }
      for (int kt = 0; kt < k_tiles; ++kt) {
        const int cur = kt & 1;
        if (kt + 1 < k_tiles) fetch(kt + 1);
        consume(lds_a(cur), lds_b(cur), acc, w);
        if (kt + 1 < k_tiles) stash(cur ^ 1);
        __syncthreads();
      }
    }
  }

  // Accumulates op(A)[m0.., :] * op(B)[:, n0..] of one batch entry into acc.
  __device__ static void main_loop(const A* a, const B* b, const gemm_hip_params& p, int m0, int n0,
                                   unsigned char* smem, wave_accumulators<K>& acc, const wave_place& w) {
    loader_a la;
    loader_b lb;
    run_pipeline(la, lb, (p.k + tile.k - 1) / tile.k, [&](int kt) {
      la.load(a, p.lda, m0, kt * tile.k, p.m, p.k, w.tid);
      lb.load(b, p.ldb, n0, kt * tile.k, p.n, p.k, w.tid);
    }, smem, acc, w);
  }
};

}  // namespace kdecl::kernels::hip
