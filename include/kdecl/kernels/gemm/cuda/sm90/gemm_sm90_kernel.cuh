// The sm_90a tma_wgmma GEMM kernel: warp-specialised, persistent, TMA-fed.
//
//   warpgroup 0      producer: one thread walks the work units and, for every
//                    k-block, waits for a free ring slot ("empty" barrier) and
//                    issues the TMA copies of the A and B tiles into it ("full"
//                    barrier counts the bytes in). It gives registers away. All
//                    its threads meet the split-K cluster barriers.
//   warpgroups 1..W  consumers: wait for a full slot, issue tile_k/instruction_k wgmma per
//                    m64 block, keep one wgmma group in flight and free the slot
//                    of the previous k-block once its group has retired. After a
//                    tile's last k-block they run the fused epilogue straight from
//                    registers while the producer already fills the ring with the
//                    next tile. multi_d + cshuffle (d_tiles.cuh): after a tile's
//                    k-blocks the producer also TMA-loads the tile's D tensors into
//                    the next ring slots, and the epilogue reads D from there.
//   split-K          (splits > 1) one unit per block, the splits of a tile form a
//                    cluster and reduce through distributed shared memory
//                    (split_k.cuh).
//   split tail       (tail_tiles > 0) the partial last wave's tiles cut in K over
//                    adjacent blocks; the tails' partials reach the head's block
//                    through global workspace (tail_split.cuh).
//   C through TMA    (c_via_tma) the epilogue writes each warp's rows in 64-byte x
//                    16-row boxes to its strip and TMA stores them (epilogue_tma_store.cuh).
//   multicast        (cluster 2x1 or 1x2) two blocks of a cluster take a pair of
//                    neighbouring tiles that share B (2x1) or A (1x2); each block's
//                    producer loads half of the shared tile and multicasts it into
//                    both blocks' slots, so a slot is free only when the consumers of
//                    both blocks have released it: they arrive on their own and on
//                    the other block's empty barrier.
//   pingpong         (scheduler pingpong) two consumer warpgroups, each on its own
//                    tile: consumer c takes the block's units c, c+2, ... The
//                    producer still fills one ring in unit order, so each consumer
//                    steps over the other's slots. A pair of named barriers hands
//                    the tensor cores over: a consumer issues its main loop only
//                    after the other has issued its previous tile's, so one tile's
//                    epilogue runs under the other's main loop.
//
// Shared memory: [A ring: stages x tile_m x 128 B][B ring: stages x tile_n x 128 B]
// [full barriers][empty barriers][16 spare bytes, up to a 128-byte boundary][cshuffle
// strips, one per consumer warp, only for epi = cshuffle; with a TMA-stored C two
// 64-byte x 16-row boxes each], the rings aligned to 1 KiB.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/d_tiles.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_cshuffle.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_direct.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_tma_store.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"
#include "kdecl/kernels/cuda/sm90/named_barrier_arrive.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/split_k.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/tail_split.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/timeline.cuh"
#include "kdecl/kernels/cuda/sm90/cluster.cuh"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_multicast.cuh"
#include "kdecl/kernels/cuda/sm90/warpgroup.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_descriptor.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_mma.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_mma_k32b.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Position in the shared-memory ring; both roles advance it identically.
struct ring_position {
  int stage = 0;
  std::uint32_t phase = 0;
  template <int Stages>
  __device__ __forceinline__ void advance() {
    if (++stage == Stages) {
      stage = 0;
      phase ^= 1;
    }
  }
  // `slots` advances at once (a pingpong consumer stepping over the other's tile).
  template <int Stages>
  __device__ __forceinline__ void skip(int slots) {
    const int to = stage + slots;
    phase ^= static_cast<std::uint32_t>(to / Stages) & 1u;
    stage = to % Stages;
  }
};

// Ring slots one unit of work fills: its k-blocks, then its D slots (d_tiles.cuh).
template <class Cfg>
__device__ __forceinline__ int ring_slots_of(const gemm_sm90_params& p, const tile_work& w) {
  int slots = w.k_block_end - w.k_block_begin;
  if constexpr (d_tile_layout<Cfg>::enabled) {
    if (p.d_via_tma) slots += d_tile_layout<Cfg>::slots;
  }
  return slots;
}

// The block's place in the persistent grid: its cluster (a unit of work is one per
// cluster) and its rank there (0 without a multicast cluster).
template <class Cfg>
struct grid_place {
  int rank, cluster, clusters;
  __device__ static grid_place here() {
    if constexpr (Cfg::cluster_size > 1) {
      return {cluster_rank(), static_cast<int>(blockIdx.x) / Cfg::cluster_size,
              static_cast<int>(gridDim.x) / Cfg::cluster_size};
    } else {
      return {0, static_cast<int>(blockIdx.x), static_cast<int>(gridDim.x)};
    }
  }
};

// A consumer warp frees a ring slot: in a multicast cluster on both blocks' empty
// barriers, since both producers write into the slot.
template <class Cfg>
__device__ __forceinline__ void release_slot(std::uint64_t* empty, int stage, int rank) {
  mbarrier_arrive(&empty[stage]);
  if constexpr (Cfg::cluster_size > 1)
    mbarrier_arrive_remote(cluster_map_shared(shared_address(&empty[stage]), rank ^ 1));
}

// pingpong's turn-taking: named barriers 2 and 3 (0 is __syncthreads, 1 split-K's).
// The main loop of the block's i-th unit starts once the consumer of unit i-1 has
// issued its own: that consumer arrives on barrier 2 + (i & 1), this one syncs on it.
inline constexpr int pingpong_barrier_base = 2;

// The D slots of one tile (d_tiles.cuh), in ring order after its k-blocks.
template <class Cfg>
__device__ __forceinline__ void produce_d_slots(const gemm_sm90_params& p, unsigned char* ring_a,
                                                unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                                ring_position& pos, int m0, int n0, int batch) {
  using dl = d_tile_layout<Cfg>;
#pragma unroll
  for (int j = 0; j < dl::slots; ++j) {
    mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
    mbarrier_arrive_expect_tx(&full[pos.stage], dl::chunks_in_slot(j) * dl::chunk_bytes);
#pragma unroll
    for (int q = j * dl::chunks_per_slot; q < j * dl::chunks_per_slot + dl::chunks_in_slot(j); ++q) {
      const int strip = q / dl::num_d;
      tma_load_3d(d_chunk<Cfg>(ring_a, ring_b, pos.stage, q), &p.map_d[q % dl::num_d], &full[pos.stage],
                  n0 + strip * dl::chunk_cols, m0, batch);
    }
    pos.advance<Cfg::stages>();
  }
}

// One operand's share of a stage: `rows` M (or N) values from `row0`, tile_k deep. K-major:
// one box (with Multicast, this block's half of the rows, the map's box being half as high);
// M/N-major: 64-row boxes (with Multicast, every other one). Multicast copies land in both
// blocks of the cluster.
template <int Rows, bool KMajor, bool Multicast>
__device__ __forceinline__ void load_operand_tile(unsigned char* slot, const CUtensorMap* map, std::uint64_t* full,
                                                  int row0, int k0, int batch, int rank) {
  constexpr std::uint16_t both_blocks = 0x3;
  if constexpr (KMajor && Multicast) {
    constexpr int half = Rows / 2;
    tma_load_3d_multicast(slot + rank * half * swizzle_row_bytes, map, full, k0, row0 + rank * half, batch,
                          both_blocks);
  } else if constexpr (KMajor) {
    tma_load_3d(slot, map, full, k0, row0, batch);
  } else {
#pragma unroll
    for (int j = 0; j < Rows / 64; ++j) {
      if constexpr (Multicast) {
        if (j % 2 == rank)
          tma_load_3d_multicast(slot + j * mn_block_bytes, map, full, row0 + 64 * j, k0, batch, both_blocks);
      } else {
        tma_load_3d(slot + j * mn_block_bytes, map, full, row0 + 64 * j, k0, batch);
      }
    }
  }
}

// The operands' tensor maps (kernel parameters, not global memory) into the TMA unit's cache.
template <gemm_key K>
__device__ __forceinline__ void prefetch_tensor_maps(const gemm_sm90_params& p) {
  tma_prefetch_descriptor(&p.map_a);
  tma_prefetch_descriptor(&p.map_b);
  if constexpr (d_tile_layout<sm90_config<K>>::enabled) {
    if (p.d_via_tma)
      for (int i = 0; i < d_tile_layout<sm90_config<K>>::num_d; ++i) tma_prefetch_descriptor(&p.map_d[i]);
  }
}

template <gemm_key K>
__device__ __forceinline__ void produce_tiles(const gemm_sm90_params& p, unsigned char* ring_a,
                                              unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty) {
  using cfg = sm90_config<K>;
  ring_position pos;
  const grid_place<cfg> place = grid_place<cfg>::here();
  const int units = p.order.units_for(place.cluster);
  for (int i = 0; i < units; ++i) {
    // The kernel after this one may be launched once every block is on its last unit (each
    // thread says so: the producer here, the consumers in consume_tiles, the rest by exiting):
    // its blocks then take SMs as ours finish, not while most of this grid is still to run.
    if (i == units - 1) allow_dependent_launch();
    const tile_work w = p.order.unit_for(place.cluster, i, place.rank);
    const int m0 = w.tile_m * cfg::tile_m;
    const int n0 = w.tile_n * cfg::tile_n;
    for (int kb = w.k_block_begin; kb < w.k_block_end; ++kb) {
      mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
      // The whole stage lands here, half of the shared operand from the other block.
      mbarrier_arrive_expect_tx(&full[pos.stage], cfg::stage_bytes);
      unsigned char* a = ring_a + pos.stage * cfg::a_stage_bytes;
      unsigned char* b = ring_b + pos.stage * cfg::b_stage_bytes;
      const int k0 = kb * cfg::tile_k;
      load_operand_tile<cfg::tile_m, cfg::a_k_major, cfg::multicast_a>(a, &p.map_a, &full[pos.stage], m0, k0,
                                                                       w.batch, place.rank);
      load_operand_tile<cfg::tile_n, cfg::b_k_major, cfg::multicast_b>(b, &p.map_b, &full[pos.stage], n0, k0,
                                                                       w.batch, place.rank);
      if (i == 0 && kb == w.k_block_begin) timeline(tl_producer_first, 0);
      pos.advance<cfg::stages>();
    }
    if constexpr (d_tile_layout<cfg>::enabled) {
      if (p.d_via_tma) produce_d_slots<cfg>(p, ring_a, ring_b, full, empty, pos, m0, n0, w.batch);
    }
  }
}

// The wgmma of a config: 16-bit types may read either operand M/N-major; 8-bit
// and tf32 operands are K-major only (the config refuses other layouts).
template <class Cfg, bool Bits16 = Cfg::operands == sm90_operand_class::bits16>
struct sm90_mma {
  using type = wgmma_m64k16<Cfg::key.sig.a, Cfg::tile_n, Cfg::a_k_major ? 0 : 1, Cfg::b_k_major ? 0 : 1>;
};
template <class Cfg>
struct sm90_mma<Cfg, false> {
  static constexpr dtype a = Cfg::operands == sm90_operand_class::tf32 ? dtype::tf32 : Cfg::key.sig.a;
  static constexpr dtype b = Cfg::operands == sm90_operand_class::tf32 ? dtype::tf32 : Cfg::key.sig.b;
  using type = wgmma_k32b<a, b, Cfg::tile_n>;
};

// Descriptor of the 64 x 16 (A) or N x 16 (B) slice for k-step `kk` of a ring slot at `base`.
template <bool KMajor>
__device__ __forceinline__ std::uint64_t operand_descriptor(std::uint32_t base, int kk) {
  if constexpr (KMajor) {
    return make_wgmma_descriptor(base + kk * 32, 16, swizzle_atom_bytes);
  } else {
    return make_wgmma_descriptor(base + kk * 16 * swizzle_row_bytes, mn_block_bytes, swizzle_atom_bytes);
  }
}

// The wgmma of one ring stage, committed as one group: every m64 block of the A slot against
// the B slot, all k-steps. StartFromZero: the stage's first instruction overwrites the
// accumulators instead of adding to them (the block_scaled variant's per-k-block sums).
template <class Cfg, bool StartFromZero = false, class Acc>
__device__ __forceinline__ void issue_stage_wgmma(Acc (&acc)[Cfg::m_blocks][Cfg::acc_regs], std::uint32_t a_slot,
                                                  std::uint32_t b_slot) {
  using mma = typename sm90_mma<Cfg>::type;
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
  wgmma_fence();
#pragma unroll
  for (int kk = 0; kk < Cfg::k_steps; ++kk) {
    const std::uint64_t desc_b = operand_descriptor<Cfg::b_k_major>(b_slot, kk);
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) {
      const std::uint64_t desc_a = operand_descriptor<Cfg::a_k_major>(a_slot + i * mn_block_bytes, kk);
      if constexpr (StartFromZero) {
        mma::run(acc[i], desc_a, desc_b, kk == 0 ? 0 : 1);
      } else {
        mma::run(acc[i], desc_a, desc_b);
      }
    }
  }
  wgmma_commit_group();
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
}

// The mainloop of one tile on a consumer warpgroup, shared with the sm_90 convolution
// (kernels/conv/cuda/sm90/): for each k-block of [k_begin, k_end), wait for its stage,
// issue every m64 block's wgmma over it, commit, and free the previous k-block's stage
// once that group has retired. Returns the stage still held (-1: none): the caller
// waits for the last group and frees it. `Gathered`: the stages were filled by
// cp.async (the generic proxy), not TMA; the consumer fences once more before wgmma
// reads them (the producer fenced before it arrived; cheap, and how the conv passed).
template <class Cfg, bool Gathered = false, class Acc>
__device__ __forceinline__ int consume_k_blocks(Acc (&acc)[Cfg::m_blocks][Cfg::acc_regs], std::uint32_t a_ring,
                                                std::uint32_t b_ring, std::uint64_t* full, std::uint64_t* empty,
                                                ring_position& pos, int k_begin, int k_end, int lane, int rank) {
  int previous_stage = -1;
  for (int kb = k_begin; kb < k_end; ++kb) {
    mbarrier_wait(&full[pos.stage], pos.phase);
    if constexpr (Gathered) fence_proxy_async_shared();
    issue_stage_wgmma<Cfg>(acc, a_ring + pos.stage * Cfg::a_stage_bytes, b_ring + pos.stage * Cfg::b_stage_bytes);
    // The group of the previous k-block has now retired: its slot may be refilled.
    wgmma_wait_group<1>();
    if (previous_stage >= 0 && lane == 0) release_slot<Cfg>(empty, previous_stage, rank);
    previous_stage = pos.stage;
    pos.advance<Cfg::stages>();
  }
  return previous_stage;
}

}  // namespace kdecl::kernels::cuda::sm90

// consume_k_blocks_scaled, the block_scaled variant's main loop: on the ring, descriptors and
// wgmma above.
#include "kdecl/kernels/gemm/cuda/sm90/block_scaled_mainloop.cuh"

namespace kdecl::kernels::cuda::sm90 {

// After a tile's last k-block: split-K reduction or the fused epilogue, from fp32
// accumulators. `pos` moves past the tile's D slots where the epilogue read them.
template <gemm_key K, class Cfg>
__device__ __forceinline__ void finish_tile(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const gemm_sm90_params& p,
                                            const tile_work& w, unsigned char* ring_a, unsigned char* ring_b,
                                            std::uint64_t* full, std::uint64_t* empty, float* strips, int consumer,
                                            int thread_in_wg, ring_position& pos) {
  using cfg = Cfg;
  const int lane = thread_in_wg % 32;
  const int warp = thread_in_wg / 32;
  if constexpr (!cfg::pingpong) {
    if (p.sched.splits > 1) {  // a cluster launch: this block's only unit
      split_k_cluster_reduce<K, cfg>(acc, p, w, ring_a, consumer, thread_in_wg, linear_rows{p.ldc});
      return;
    }
  }

  // Warp's first row in the tile (a pingpong consumer owns the whole tile).
  const int tile_row0 = (cfg::pingpong ? 0 : consumer * cfg::rows_per_warpgroup) + warp * 16;
  const int warp_row0 = w.tile_m * cfg::tile_m + tile_row0;
  if constexpr (cfg::staged_epilogue) {
    float* strip = strips + (consumer * 4 + warp) * cshuffle_warp_floats;
    if constexpr (tma_store_chunks<cfg>::enabled) {
      if (p.c_via_tma) {
        epilogue_tma_store<K, cfg>(acc, p, w.batch, warp_row0, w.tile_n * cfg::tile_n,
                                   reinterpret_cast<unsigned char*>(strip), lane);
        return;
      }
    }
    const d_ring_view d_ring{ring_a, ring_b, full, empty, pos.stage, pos.phase};
    if constexpr (d_tile_layout<cfg>::enabled) {
      if (p.d_via_tma) {
        epilogue_cshuffle<K, cfg, true>(acc, p, w.batch, warp_row0, w.tile_n * cfg::tile_n, strip, lane, d_ring,
                                        tile_row0, linear_rows{p.ldc});
#pragma unroll
        for (int j = 0; j < d_tile_layout<cfg>::slots; ++j) pos.advance<cfg::stages>();
        return;
      }
    }
    epilogue_cshuffle<K, cfg, false>(acc, p, w.batch, warp_row0, w.tile_n * cfg::tile_n, strip, lane, d_ring,
                                     tile_row0, linear_rows{p.ldc});
  } else {
    epilogue_direct<K, cfg>(acc, p, w.batch, warp_row0 + lane / 4, w.tile_n * cfg::tile_n + 2 * (lane % 4),
                            linear_rows{p.ldc});
  }
}

template <gemm_key K>
__device__ __forceinline__ void consume_tiles(const gemm_sm90_params& p, unsigned char* ring_a,
                                              unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                              float* strips, int consumer, int thread_in_wg) {
  using cfg = sm90_config<K>;
  const int lane = thread_in_wg % 32;
  // This consumer's m64 blocks start m_blocks boxes into each A slot (pingpong: all of them).
  const std::uint32_t a_ring =
      shared_address(ring_a) + (cfg::pingpong ? 0 : consumer * cfg::m_blocks * mn_block_bytes);
  const std::uint32_t b_ring = shared_address(ring_b);
  // pingpong: this consumer takes every other unit of the block's share.
  constexpr int units_per_turn = cfg::pingpong ? 2 : 1;
  const int first_turn = cfg::pingpong ? consumer : 0;

  // s32 accumulators stay in integer registers through the mainloop (no moves
  // between register classes next to wgmma, which would make ptxas serialise it).
  using acc_t = std::conditional_t<cfg::integer_acc, std::uint32_t, float>;
  acc_t acc[cfg::m_blocks][cfg::acc_regs];
  ring_position pos;
  const grid_place<cfg> place = grid_place<cfg>::here();
  const int units = p.order.units_for(place.cluster);
  const auto unit = [&](int i) { return p.order.unit_for(place.cluster, i, place.rank); };
  if (cfg::pingpong && first_turn == 1 && units > 0)
    pos.skip<cfg::stages>(ring_slots_of<cfg>(p, unit(0)));  // the other consumer's first unit
  for (int turn = first_turn; turn < units; turn += units_per_turn) {
    if (turn + units_per_turn >= units) allow_dependent_launch();  // as the producer does (produce_tiles)
    const tile_work w = unit(turn);
#pragma unroll
    for (int i = 0; i < cfg::m_blocks; ++i)
#pragma unroll
      for (int r = 0; r < cfg::acc_regs; ++r) acc[i][r] = acc_t{0};
    if constexpr (cfg::pingpong) {
      if (turn > 0) named_barrier_sync(pingpong_barrier_base + (turn & 1), 256);
    }

    if constexpr (timeline_enabled) {  // the probe build's stamp of the first stage's arrival
      if (turn == first_turn) {
        mbarrier_wait(&full[pos.stage], pos.phase);
        timeline(tl_first_data);
      }
    }
    int previous_stage;
    if constexpr (cfg::block_scaled) {
      const int warp_rows = (cfg::pingpong ? 0 : consumer * cfg::rows_per_warpgroup) + thread_in_wg / 32 * 16;
      previous_stage = consume_k_blocks_scaled<cfg>(acc, a_ring, b_ring, full, empty, pos, p, w,
                                                    w.tile_m * cfg::tile_m + warp_rows + lane / 4, lane, place.rank);
    } else {
      previous_stage = consume_k_blocks<cfg>(acc, a_ring, b_ring, full, empty, pos, w.k_block_begin, w.k_block_end,
                                             lane, place.rank);
    }
    const bool has_next = turn + 1 < units;  // the other consumer's next (pingpong)
    if constexpr (cfg::pingpong) {
      // Main loop issued: the other consumer may issue its next tile's (if it has one).
      if (has_next) named_barrier_arrive(pingpong_barrier_base + ((turn + 1) & 1), 256);
    }
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < cfg::m_blocks; ++i) fence_accumulators(acc[i]);
    if (previous_stage >= 0 && lane == 0) release_slot<cfg>(empty, previous_stage, place.rank);
    timeline(tl_mainloop_done);
    // Split tail: a tile's later K ranges go to the block holding its first, which adds them in.
    bool finish = w.valid;
    if constexpr (cfg::tail_split_fits) {
      if (p.sched.tail_tiles > 0 && p.sched.in_tail(w)) {
        const int thread = consumer * 128 + thread_in_wg;
        if (w.split > 0) {
          tail_store_partial<cfg>(acc, p, place.cluster, thread);
          finish = false;
        } else {
          tail_add_partials<cfg>(acc, p, place.cluster, thread);
        }
      }
    }
    // A cluster's block past the last tile row or column loaded its half for the other only.
    if (finish) {
      if constexpr (cfg::integer_acc) {
        // s32 accumulators -> fp32 for split-K and the epilogues (exact below 2^24).
        float acc_f[cfg::m_blocks][cfg::acc_regs];
#pragma unroll
        for (int i = 0; i < cfg::m_blocks; ++i)
#pragma unroll
          for (int r = 0; r < cfg::acc_regs; ++r)
            acc_f[i][r] = static_cast<float>(static_cast<std::int32_t>(acc[i][r]));
        finish_tile<K, cfg>(acc_f, p, w, ring_a, ring_b, full, empty, strips, consumer, thread_in_wg, pos);
      } else {
        finish_tile<K, cfg>(acc, p, w, ring_a, ring_b, full, empty, strips, consumer, thread_in_wg, pos);
      }
      timeline(tl_tile_done);
    }
    if constexpr (cfg::pingpong) {
      if (has_next) pos.skip<cfg::stages>(ring_slots_of<cfg>(p, unit(turn + 1)));
    }
  }
  if constexpr (tma_store_chunks<cfg>::enabled) tma_store_drain(lane);
}

// Templated on the config type, not on the key: nvcc's host stubs cannot spell a
// class-type template argument of a __global__ function, but can a type holding it.
template <class Cfg>
__global__ void __launch_bounds__(Cfg::threads, 1) gemm_sm90_kernel(const __grid_constant__ gemm_sm90_params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // A kernel-set TU is compiled for several targets; this kernel exists only as
  // sm_90a code (wgmma, TMA, setmaxnreg). run() never launches it elsewhere.
  __trap();
#else
  using cfg = Cfg;
  constexpr gemm_key K = Cfg::key;
  extern __shared__ unsigned char smem_raw[];
  // The 128-byte swizzle pattern repeats every 1 KiB: slots must start on that boundary.
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* ring_a = smem;
  unsigned char* ring_b = smem + cfg::stages * cfg::a_stage_bytes;
  auto* full = reinterpret_cast<std::uint64_t*>(smem + cfg::stages * cfg::stage_bytes);
  std::uint64_t* empty = full + cfg::stages;
  float* strips = reinterpret_cast<float*>(smem + cfg::stages * cfg::stage_bytes + barrier_block_bytes(cfg::stages));

  timeline(tl_entry, 0);
  if (threadIdx.x == 0) {
    for (int s = 0; s < cfg::stages; ++s) {
      mbarrier_init(&full[s], 1);                                 // the producer's expect_tx arrival
      // one arrival per warp reading the slot, in both blocks of a multicast cluster
      mbarrier_init(&empty[s], cfg::warpgroups_per_tile * 4 * cfg::cluster_size);
    }
    mbarrier_init_fence();
    prefetch_tensor_maps<K>(p);
  }
  // A multicast cluster: the other block's barriers must exist before anything reaches them.
  if constexpr (cfg::cluster_size > 1) cluster_sync();
  else __syncthreads();
  // run() launches this kernel as a programmatic dependent of the kernel before it in the stream
  // (dependent_launch.cuh): the launch, the barrier set-up and the tensor-map prefetch above ran
  // under that kernel's last blocks; global memory (A, B, C, D, the split tail's flags) only
  // from here on. (The producer lets the next kernel launch: produce_tiles.)
  wait_for_prerequisite_grids();
  timeline(tl_ready);

  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    warpgroup_release_registers<cfg::producer_regs>();
    if (threadIdx.x == 0) produce_tiles<K>(p, ring_a, ring_b, full, empty);
    timeline(tl_producer_done, 0);
    if (p.sched.splits > 1) split_k_producer_wait();
  } else {
    warpgroup_claim_registers<cfg::consumer_regs>();
    consume_tiles<K>(p, ring_a, ring_b, full, empty, strips, warpgroup - 1, threadIdx.x % 128);
  }
  // ... and no block leaves while the other may still write into its slots or barriers.
  if constexpr (cfg::cluster_size > 1) cluster_sync();
  timeline(tl_exit);
#endif
}

}  // namespace kdecl::kernels::cuda::sm90
