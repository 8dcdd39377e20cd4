// Split-K for tiles too few to occupy every SM (small M): the K range of a tile
// is cut into `splits` units that run on the `splits` blocks of one thread-block
// cluster (cluster rank == split index). Each block writes its fp32 partial tile
// into its own shared memory (the now idle operand ring); after a cluster barrier
// every block reduces one slice of the tile, reading the partials of all blocks
// through distributed shared memory in split order 0, 1, ... (deterministic), and
// runs the epilogue for that slice. No global workspace, no counters, no memset.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/sm90/cluster.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/output_rows.cuh"
#include "kdecl/kernels/cuda/sm90/shared_address.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/tile_scheduler.cuh"
#include "kdecl/kernels/cuda/sm90/warpgroup.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/timeline.cuh"

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int consumer_barrier_id = 1;

// Largest cluster the launch asks for (the portable limit; no opt-in needed).
inline constexpr int max_cluster_splits = 8;

// The reduction of split_k_cluster_reduce's slice, one group of 4 columns per step, read from
// the `splits` ranks in rank order (deterministic). A thread's groups are `threads` apart; their
// (row, column group) advance without a division per step. (Reading several groups' partials
// before adding any was tried: slower for 128x192 and 128x256 tiles at 4-8 splits, faster only
// for 128x128 at 6-8; sm90_probe splits, docs/perf/h100-2026-12-06-launch-start-gemm/.)
template <gemm_key K, class Cfg, class Rows>
__device__ __forceinline__ void reduce_slice(const gemm_sm90_params& p, const tile_work& w,
                                             unsigned char* partial_smem, int consumer, int thread_in_wg,
                                             const Rows& rows, int splits) {
  using out_t = typename Cfg::out_t;
  constexpr int ld = Cfg::split_k_partial_ld, threads = Cfg::consumer_threads;
  const int m0 = w.tile_m * Cfg::tile_m;
  const int n0 = w.tile_n * Cfg::tile_n;
  const int rows_valid = min(Cfg::tile_m, p.m - m0);
  const int cols_valid = min(Cfg::tile_n, p.n - n0);
  const int groups_per_row = (cols_valid + 3) / 4;
  const int groups = rows_valid * groups_per_row;
  const int begin = static_cast<int>(static_cast<long long>(groups) * w.split / splits);
  const int end = static_cast<int>(static_cast<long long>(groups) * (w.split + 1) / splits);
  const int step_rows = threads / groups_per_row, step_cols = threads - step_rows * groups_per_row;
  int g = begin + consumer * 128 + thread_in_wg;
  int r = g / groups_per_row, cg = g - r * groups_per_row;
  const std::uint32_t base = shared_address(partial_smem);
  out_t* c = static_cast<out_t*>(p.c) + w.batch * p.stride_c;
  for (; g < end; g += threads) {
    const std::uint32_t offset = base + static_cast<std::uint32_t>((r * ld + 4 * cg) * 4);
    float4 part_of[max_cluster_splits];
#pragma unroll
    for (int s = 0; s < max_cluster_splits; ++s)
      if (s < splits) part_of[s] = cluster_load_float4(cluster_map_shared(offset, s));
    float v[4] = {part_of[0].x, part_of[0].y, part_of[0].z, part_of[0].w};
#pragma unroll
    for (int s = 1; s < max_cluster_splits; ++s) {
      if (s < splits) {
        v[0] += part_of[s].x; v[1] += part_of[s].y; v[2] += part_of[s].z; v[3] += part_of[s].w;
      }
    }
    const int row = m0 + r, col = n0 + 4 * cg;
    r += step_rows;
    cg += step_cols;
    if (cg >= groups_per_row) {
      cg -= groups_per_row;
      ++r;
    }
    if (!row_stored(rows, row)) continue;
    out_t* c_row = c + row_offset<K>(rows, row);
    element_run<4> run;
    run.first = col;
    run.valid = 0;
#pragma unroll
    for (int e = 0; e < 4; ++e) run.valid |= col + e < p.n ? 1u << e : 0u;
    const bool c_vector = run.whole() && vector_aligned<4>(c_row + col);
    gather_inputs<K, 4>(v, c_row, run, c_vector, p, w.batch, row, 0);
    store_outputs<K, 4>(v, c_row, run, c_vector);
  }
}

// Called by every consumer thread of every block of the cluster, once, after the
// main loop of the block's single unit. The producer warpgroup meets the two
// cluster barriers in split_k_producer_wait(). Rows of C land where `rows` says
// (output_rows.cuh).
template <gemm_key K, class Cfg, class Rows = linear_rows>
__device__ void split_k_cluster_reduce(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const gemm_sm90_params& p,
                                       const tile_work& w, unsigned char* partial_smem, int consumer,
                                       int thread_in_wg, const Rows& rows) {
  constexpr int ld = Cfg::split_k_partial_ld;
  const int lane = thread_in_wg % 32;
  const int warp = thread_in_wg / 32;
  const int rows_valid = min(Cfg::tile_m, p.m - w.tile_m * Cfg::tile_m);

  // The ring is reused for the partial: every consumer's wgmma must have read it.
  named_barrier_sync(consumer_barrier_id, Cfg::consumer_threads);
  float* part = reinterpret_cast<float*>(partial_smem);
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int row = consumer * Cfg::rows_per_warpgroup + 64 * i + 16 * warp + lane / 4 + 8 * h;
      if (row >= rows_valid) continue;  // rows past M are never reduced
#pragma unroll
      for (int j = 0; j < Cfg::tile_n / 8; ++j)
        *reinterpret_cast<float2*>(part + row * ld + 8 * j + 2 * (lane % 4)) =
            make_float2(acc[i][4 * j + 2 * h], acc[i][4 * j + 2 * h + 1]);
    }
  }
  cluster_sync();  // every split's partial is now readable cluster-wide
  timeline(tl_partial_shared);

  // This block's slice: groups of 4 adjacent columns, split evenly over the ranks.
  reduce_slice<K, Cfg>(p, w, partial_smem, consumer, thread_in_wg, rows, p.sched.splits);
  timeline(tl_reduced);
  cluster_sync();  // no block may exit while another still reads its partial
}

// The producer warpgroup's share of the two cluster barriers above.
__device__ __forceinline__ void split_k_producer_wait() {
  cluster_sync();
  cluster_sync();
}

}  // namespace kdecl::kernels::cuda::sm90
