// Split tail for the cooperative kernels: where the output tiles leave the persistent
// grid's last wave less than half full (152 tiles on 132 SMs: a second wave of 20 tiles
// while 112 SMs idle), each of those last tiles is cut into K ranges that run at once on
// adjacent blocks (tile_scheduler.cuh). The block holding a tile's first range (its
// "head") finishes it: the others ("tails") write their fp32 accumulators to a slot of
// global workspace and raise a flag; the head adds the tails' partials in block order
// (deterministic), then runs the usual epilogue.
//
// Every range j of the tail starts at the same time at the same K, so tiles that share A
// rows or B columns read them from L2 together, as whole tiles do. (A stream-K that cut
// the tail by k-blocks over all blocks was tried first: its blocks ran tiles sharing an
// operand at different K, which re-read B from DRAM on long K: 512x4608x36864 with 128x192
// tiles ran 1.37x slower, docs/perf/h200-2026-11-29-gemm-tma-store-split-tail/.)
//
// No counters to reset and no memset: a flag holds the launch's epoch (a 64-bit number no
// earlier launch used) once its slot is written. Tails wait for nothing, so the heads'
// waits cannot form a cycle, but every block of the grid must be resident at once (one
// block per SM, the grid no larger than the SMs: the persistent grid's rule anyway).
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>

#include "kdecl/kernels/cuda/sm90/warpgroup.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/split_k.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/tile_scheduler.cuh"

namespace kdecl::kernels::cuda::sm90 {

// ---- host: when to split the tail, and the workspace that needs

// What a split costs beyond its share of k-blocks, in k-blocks of main loop: a tail's
// partial written and read back (a 128x256 fp32 tile is 128 KiB each way) and a last
// wave of whole tiles running faster than a full one (fewer blocks share L2 and DRAM).
// Fitted on the H200 (docs/perf/h200-2026-11-29-gemm-tma-store-split-tail/): with 4 and
// ranges of 4 k-blocks, 1576x3072x1024 (16 k-blocks) ran 3-5% slower split.
inline constexpr int tail_fixup_k_blocks = 8;
// Fewer k-blocks per range than this and a range does not pay for its fixup.
inline constexpr int tail_min_k_blocks_per_split = 8;

struct tail_split {
  int tiles = 0;   // the last tiles, cut in K (0: no split tail)
  int splits = 1;  // K ranges per tail tile
};

// The split tail for `tiles` tiles of `k_blocks` k-blocks on `blocks` blocks: the partial
// last wave, cut as many ways as its tiles fit in the blocks, where that makes the busiest
// block's share a tenth shorter or more, counting one fixup. Only behind whole waves: fewer
// tiles than blocks are cluster split-K's (gemm_sm90.cuh).
inline tail_split plan_tail_split(int tiles, int k_blocks, int blocks) {
  if (tiles <= blocks || blocks <= 1) return {};
  const int waves = tiles / blocks, rest = tiles % blocks;
  if (rest == 0) return {};
  int splits = blocks / rest;
  while (splits > 1 && k_blocks / splits < tail_min_k_blocks_per_split) --splits;
  if (splits < 2) return {};
  const long long whole = static_cast<long long>(waves + 1) * k_blocks;
  const long long split = static_cast<long long>(waves) * k_blocks + (k_blocks + splits - 1) / splits +
                          tail_fixup_k_blocks;
  if (10 * split > 9 * whole) return {};
  return {rest, splits};
}

// Workspace of a split-tail launch: one flag per block, then one fp32 tile slot per block.
struct tail_workspace {
  static constexpr std::size_t align = 256;
  static std::size_t flag_bytes(int blocks) { return (std::size_t(blocks) * 8 + align - 1) / align * align; }
  static std::size_t bytes(int blocks, int tile_m, int tile_n) {
    return flag_bytes(blocks) + std::size_t(blocks) * tile_m * tile_n * sizeof(float);
  }
};

// A number no earlier launch of this process used (never 0; the start is random so that
// workspace left by another process is unlikely to hold it either).
inline unsigned long long next_tail_epoch() {
  static std::atomic<unsigned long long> next{
      (static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) *
       0x9E3779B97F4A7C15ull) | 1ull};
  unsigned long long e = next.fetch_add(1, std::memory_order_relaxed);
  return e != 0 ? e : next.fetch_add(1, std::memory_order_relaxed);
}

// ---- device

__device__ __forceinline__ void store_release_gpu(unsigned long long* flag, unsigned long long v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(flag), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned long long load_acquire_gpu(const unsigned long long* flag) {
  unsigned long long v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(flag) : "memory");
  return v;
}

// Float4 q of consumer thread t of a slot lives at q * consumer_threads + t: each store and
// load of a warp covers 512 contiguous bytes, and a head reads its own fragment back.
template <class Cfg>
__device__ __forceinline__ float4* tail_slot(const gemm_sm90_params& p, int block) {
  constexpr std::size_t slot_float4s = std::size_t(Cfg::tile_m) * Cfg::tile_n / 4;
  return reinterpret_cast<float4*>(p.tail_partials) + std::size_t(block) * slot_float4s;
}

// A tail: this block's partial accumulators to its slot, then its flag. Every consumer thread.
template <class Cfg>
__device__ __forceinline__ void tail_store_partial(const float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                   const gemm_sm90_params& p, int block, int thread) {
  float4* slot = tail_slot<Cfg>(p, block);
  constexpr int per_block = Cfg::acc_regs / 4;
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
    for (int q = 0; q < per_block; ++q)
      __stcg(&slot[(i * per_block + q) * Cfg::consumer_threads + thread],
             make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2], acc[i][4 * q + 3]));
  __threadfence();
  named_barrier_sync(consumer_barrier_id, Cfg::consumer_threads);
  if (thread == 0) store_release_gpu(&p.tail_flags[block], p.tail_epoch);
}

// A head: add the partials of its tails, the next splits - 1 blocks, in block order.
// Every consumer thread.
template <class Cfg>
__device__ __forceinline__ void tail_add_partials(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                  const gemm_sm90_params& p, int block, int thread) {
  constexpr int per_block = Cfg::acc_regs / 4;
  for (int peer = block + 1; peer < block + p.sched.tail_splits; ++peer) {
    if (thread == 0)
      while (load_acquire_gpu(&p.tail_flags[peer]) != p.tail_epoch) __nanosleep(32);
    named_barrier_sync(consumer_barrier_id, Cfg::consumer_threads);
    const float4* slot = tail_slot<Cfg>(p, peer);
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
      for (int q = 0; q < per_block; ++q) {
        const float4 v = __ldcg(&slot[(i * per_block + q) * Cfg::consumer_threads + thread]);
        acc[i][4 * q] += v.x;
        acc[i][4 * q + 1] += v.y;
        acc[i][4 * q + 2] += v.z;
        acc[i][4 * q + 3] += v.w;
      }
  }
}

}  // namespace kdecl::kernels::cuda::sm90
