// The warp-specialized body of the sm_90a convolutions: a producer warpgroup
// feeding the tma_wgmma GEMM's consumers (wgmma from the 128-byte swizzled ring,
// the direct and cshuffle epilogues) over the GEMM's persistent tile scheduler.
// What is loaded, and how, is the Producer's business:
//
//   forward            (conv_fwd_sm90.cuh)         A = im2col(input) K-major, B = weights K-major
//   backward-weight    (conv_bwd_weight_sm90.cuh)  A = dY M-major, B = im2col(input) N-major
//
//   warpgroup 0      producer, one of:
//                    - gathering_producer<Cfg, Gather>: all 128 threads copy with
//                      cp.async (Gather::load: one 16-byte chunk column of each of its
//                      rows, at the chunk TMA's 128-byte swizzle would put it). Each
//                      thread commits one cp.async group per stage and, stages - 2
//                      behind, waits for a group, fences the proxies and arrives on
//                      that stage's full barrier (cp_async_barrier.cuh);
//                    - a TMA producer (one thread issues bulk tensor copies that
//                      complete on the full barrier by their bytes).
//   warpgroups 1..W  consumers, as in the GEMM: wait for a full stage, fence the
//                    proxies after a gather, issue the wgmma (consume_k_blocks),
//                    free the previous stage when its group retires; the fused
//                    epilogue runs from registers while the producer fills the
//                    ring for the next tile. intrawave: all consumers on one tile;
//                    pingpong: two, each on its own tile, taking turns at the
//                    tensor cores so that one's epilogue runs under the other's
//                    main loop (what layers of short depth, few channels x taps, need).
//   split-K          a cluster launch (sched.splits > 1): the GEMM's cluster split-K
//                    (split_k.cuh), reduced through distributed shared memory.
//   output rows      ldc apart (the GEMM's linear_rows), or with PixelRows wherever
//                    params.rows (a pixel_row_map, kernels/conv/pixel_rows.hpp) puts
//                    each output pixel: the stride phases of backward-data. Rows ldc
//                    apart go out through the GEMM's TMA-store epilogue where the
//                    launch encoded a C map (params.out.c_via_tma), else the staged one.
//
// A Producer provides:
//   using params;                       the launch's parameters: one convolution's, with `out`
//                                       (gemm_sm90_params: C, its extents and strides, the
//                                       scheduler) and k_range(w) -> {first, end} k-block of
//                                       unit w, or a set of them (conv_phase_set.cuh: several
//                                       convolutions in one launch, backward-data's stride phases)
//   static constexpr int arrivals;      arrivals that complete a full barrier
//   static constexpr bool gathered;     written through the generic proxy (cp.async)
//   static void run(params, ring_a, ring_b, full, empty, tid)   every producer thread
//
// A Gather (for gathering_producer) provides:
//   Gather(int tid);                   the producer thread's fixed share
//   start_tile(params, tile_work)      per unit (the tile's rows, columns and group)
//   load(params, kb, a_slot, b_slot)   the copies of k-block kb into one stage
#pragma once

#include <cstdint>

#include "kdecl/kernels/conv/cuda/sm90/conv_phase_set.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_kernel.cuh"

namespace kdecl::kernels::cuda::sm90 {

// The k-blocks one unit of work covers.
struct k_block_range {
  int first, end;
};

// Register budgets (setmaxnreg): two consumer warpgroups with 128 accumulators each
// need more than the 168 a thread gets at launch; the producer's gather keeps its
// rows' positions in registers and cannot go as low as the TMA producer's 40. The
// block can only share out what it was given at launch (384 x 168 = 64,512): a
// consumer asking for more than the producer gave up waits forever.
template <class Cfg>
struct conv_sm90_registers {
  static constexpr bool reallocate = Cfg::consumer_warpgroups == 2 && Cfg::m_blocks * Cfg::acc_regs > 64;
  static constexpr int producer = 72;
  static constexpr int consumer = 216;
  static_assert(128 * producer + 256 * consumer <= 384 * 168, "more registers than the block holds");
};

template <class Cfg, class Gather, class Params>
__device__ __forceinline__ void conv_produce_tiles(const Params& p, unsigned char* ring_a,
                                                   unsigned char* ring_b, std::uint64_t* full, std::uint64_t* empty,
                                                   int tid) {
  Gather gather(tid);
  const std::uint32_t a_ring = shared_address(ring_a), b_ring = shared_address(ring_b);
  // Each thread commits one cp.async group per stage and marks a stage full once its copies
  // have landed, `lag` stages behind the one it is filling: the copies of lag + 1 stages are
  // in flight at once. A consumer frees a stage only after it has started on the next one,
  // so the producer may run at most stages - 2 ahead of its arrivals (else both wait).
  constexpr int lag = Cfg::stages - 2;
  ring_position pos, landed;
  int in_flight = 0;
  const auto mark_landed = [&] {
    fence_proxy_async_shared();  // the copies, seen by this thread, before the consumers' wgmma reads
    mbarrier_arrive(&full[landed.stage]);
    landed.advance<Cfg::stages>();
  };
  const int units = launch_units(p);
  for (int unit = blockIdx.x; unit < units; unit += gridDim.x) {
    const auto u = locate_unit(p, unit);  // its convolution's parameters (a phase set's: its phase's)
    gather.start_tile(*u.p, u.w);
    const k_block_range ks = u.p->k_range(u.w);
    for (int kb = ks.first; kb < ks.end; ++kb) {
      mbarrier_wait(&empty[pos.stage], pos.phase ^ 1);
      gather.load(*u.p, kb, a_ring + pos.stage * Cfg::a_stage_bytes, b_ring + pos.stage * Cfg::b_stage_bytes);
      sm80::cp_async_commit();
      pos.advance<Cfg::stages>();
      if (++in_flight > lag) {
        sm80::cp_async_wait<lag>();
        mark_landed();
        --in_flight;
      }
    }
  }
  sm80::cp_async_wait<0>();
  for (; in_flight > 0; --in_flight) mark_landed();
  if (launch_splits(p) > 1) split_k_producer_wait();
}

// The cp.async producer of a Gather (see the file comment), on one convolution's parameters
// (the Gather's) or a set of them (conv_phase_set.cuh).
template <class Cfg, class Gather, class Params = typename Gather::params>
struct gathering_producer {
  using params = Params;
  static constexpr int arrivals = 128;  // each producer thread, once its copies have landed
  static constexpr bool gathered = true;
  __device__ static void run(const params& p, unsigned char* ring_a, unsigned char* ring_b, std::uint64_t* full,
                             std::uint64_t* empty, int tid) {
    conv_produce_tiles<Cfg, Gather>(p, ring_a, ring_b, full, empty, tid);
  }
};

// The TMA descriptors of a launch's convolutions (out.map_a and out.map_b of each), into
// the descriptor cache.
template <class Params>
__device__ __forceinline__ void prefetch_tma_maps(const Params& p) {
  tma_prefetch_descriptor(&p.out.map_a);
  tma_prefetch_descriptor(&p.out.map_b);
}
template <class Phase, int Capacity>
__device__ __forceinline__ void prefetch_tma_maps(const phase_set_params<Phase, Capacity>& s) {
  for (int i = 0; i < s.count; ++i) prefetch_tma_maps(s.phase[i]);
}

// A producer one thread drives with TMA copies (they complete the full barrier by their
// bytes, after that thread's expect_tx): Derived::produce(p, ring_a, ring_b, full, empty),
// the descriptors in out.map_a and out.map_b of each convolution. The other producer
// threads only meet the split-K cluster barriers.
template <class Derived, class Params>
struct single_thread_producer {
  using params = Params;
  static constexpr int arrivals = 1;
  static constexpr bool gathered = false;
  __device__ static void run(const params& p, unsigned char* ring_a, unsigned char* ring_b, std::uint64_t* full,
                             std::uint64_t* empty, int tid) {
    if (tid == 0) {
      prefetch_tma_maps(p);
      Derived::produce(p, ring_a, ring_b, full, empty);
    }
    if (launch_splits(p) > 1) split_k_producer_wait();  // every producer thread meets the cluster barriers
  }
};

// Where the epilogue stores the output rows of the tile starting at row first_row: the
// Params' pixel map (its of_tile: the map itself, or one tile's part of it), or ldc apart.
template <bool PixelRows, class Params>
__device__ __forceinline__ auto output_rows_of(const Params& p, int first_row) {
  if constexpr (PixelRows) {
    return p.rows.of_tile(first_row);
  } else {
    return linear_rows{p.out.ldc};
  }
}

// The GEMM's mainloop (gemm_sm90_kernel.cuh consume_k_blocks) over one ring whose stages
// hold a k-block's A and B each, as the consumers of conv_consume_tiles see it:
//   consume(acc, q, w, lane)  issue the unit's k-blocks, keeping the last stage
//   release(lane)             free what consume kept, once its wgmma have retired
//   skip(q, w)                step over a unit the other pingpong consumer computes
// (the halo tiles' mainloop, conv_fwd_halo_sm90.cuh, is the other such policy).
template <class Cfg, bool Gathered>
struct ring_mainloop {
  static constexpr bool splits_k = Cfg::split_k_fits;  // its tiles may be split over a cluster
  unsigned char* ring;       // the ring's first stage (split-K's partial tile reuses it)
  std::uint32_t a_ring, b_ring;  // this consumer's first A rows, the B slots
  std::uint64_t *full, *empty;
  ring_position pos;
  int held = -1;             // the stage consume() kept

  __device__ ring_mainloop(unsigned char* ring_a, unsigned char* ring_b, std::uint64_t* full_, std::uint64_t* empty_,
                           int consumer)
      : ring(ring_a),
        a_ring(shared_address(ring_a) + (Cfg::pingpong ? 0 : consumer * Cfg::m_blocks * mn_block_bytes)),
        b_ring(shared_address(ring_b)), full(full_), empty(empty_) {}

  template <class Params>
  __device__ void consume(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], const Params& q, const tile_work& w, int lane) {
    const k_block_range ks = q.k_range(w);
    held = consume_k_blocks<Cfg, Gathered>(acc, a_ring, b_ring, full, empty, pos, ks.first, ks.end, lane, 0);
  }
  __device__ void release(int lane) {
    if (held >= 0 && lane == 0) release_slot<Cfg>(empty, held, 0);
  }
  template <class Params>
  __device__ void skip(const Params& q, const tile_work& w) {
    const k_block_range ks = q.k_range(w);
    pos.skip<Cfg::stages>(ks.end - ks.first);
  }
  // Where split-K's partial tile goes (split_k.cuh): the ring, all of whose stages are consumed.
  __device__ unsigned char* split_k_scratch() const { return ring; }
};

// The consumers' walk over the block's units: intrawave, every consumer on each unit (its
// m_blocks of the tile's rows); pingpong, consumer c on units c, c + 2, ... of the block's
// share, each on a whole tile, taking turns at the tensor cores (the GEMM's named barriers,
// gemm_sm90_kernel.cuh) so that one tile's epilogue runs under the other's main loop. The
// producer fills the rings in unit order, so a pingpong consumer steps over the other's
// stages. The Mainloop (ring_mainloop above) issues a unit's wgmma.
template <gemm_key G, class Cfg, bool PixelRows, class Mainloop, class Params>
__device__ __forceinline__ void conv_consume_tiles(const Params& p, Mainloop& mainloop, float* strips, int consumer,
                                                   int thread_in_wg) {
  const int lane = thread_in_wg % 32, warp = thread_in_wg / 32;
  // C through TMA (params.out.c_via_tma, set by the launch): output rows ldc apart only; a
  // fused epilogue's bias and residual are read from global memory there.
  constexpr bool stores_through_tma = tma_store_chunks<Cfg>::enabled_with_global_d && !PixelRows;
  float acc[Cfg::m_blocks][Cfg::acc_regs];
  const int units = launch_units(p);
  const auto skip_unit = [&](int unit) {
    const auto u = locate_unit(p, unit);
    mainloop.skip(*u.p, u.w);
  };
  constexpr int units_per_turn = Cfg::pingpong ? 2 : 1;
  const int first_turn = Cfg::pingpong ? consumer : 0;
  if (Cfg::pingpong && first_turn == 1 && int(blockIdx.x) < units)
    skip_unit(int(blockIdx.x));  // the other consumer's first unit
  for (int turn = first_turn;; turn += units_per_turn) {
    const int unit = int(blockIdx.x) + turn * int(gridDim.x);
    if (unit >= units) break;
    const auto u = locate_unit(p, unit);  // its convolution's parameters (a phase set's: its phase's)
    const auto& q = *u.p;
    const tile_work w = u.w;
    const auto rows = output_rows_of<PixelRows>(q, w.tile_m * Cfg::tile_m);
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
      for (int r = 0; r < Cfg::acc_regs; ++r) acc[i][r] = 0.0f;
    if constexpr (Cfg::pingpong) {
      if (turn > 0) named_barrier_sync(pingpong_barrier_base + (turn & 1), 256);
    }
    mainloop.consume(acc, q, w, lane);
    const int next_unit = unit + int(gridDim.x);  // the other consumer's next (pingpong)
    if constexpr (Cfg::pingpong) {
      // Main loop issued: the other consumer may issue its next tile's (if it has one).
      if (next_unit < units) named_barrier_arrive(pingpong_barrier_base + ((turn + 1) & 1), 256);
    }
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(acc[i]);
    mainloop.release(lane);
    if constexpr (Mainloop::splits_k) {  // never pingpong
      if (q.out.sched.splits > 1) {     // a cluster launch: this block's only unit
        split_k_cluster_reduce<G, Cfg>(acc, q.out, w, mainloop.split_k_scratch(), consumer, thread_in_wg, rows);
        return;
      }
    }

    // Warp's first row in the tile (a pingpong consumer owns the whole tile).
    const int tile_row0 = (Cfg::pingpong ? 0 : consumer * Cfg::rows_per_warpgroup) + warp * 16;
    const int warp_row0 = w.tile_m * Cfg::tile_m + tile_row0;
    if constexpr (Cfg::staged_epilogue) {
      float* strip = strips + (consumer * 4 + warp) * cshuffle_warp_floats;
      bool stored = false;
      if constexpr (stores_through_tma) {
        if (q.out.c_via_tma) {
          epilogue_tma_store<G, Cfg>(acc, q.out, w.batch, warp_row0, w.tile_n * Cfg::tile_n,
                                     reinterpret_cast<unsigned char*>(strip), lane);
          stored = true;
        }
      }
      if (!stored) {
        const d_ring_view no_d{nullptr, nullptr, nullptr, nullptr, 0, 0};  // the conv epilogue reads no D tensors
        epilogue_cshuffle<G, Cfg, false>(acc, q.out, w.batch, warp_row0, w.tile_n * Cfg::tile_n, strip, lane, no_d,
                                         tile_row0, rows);
      }
    } else {
      epilogue_direct<G, Cfg>(acc, q.out, w.batch, warp_row0 + lane / 4, w.tile_n * Cfg::tile_n + 2 * (lane % 4),
                              rows);
    }
    if constexpr (Cfg::pingpong) {
      if (next_unit < units) skip_unit(next_unit);
    }
  }
  if constexpr (stores_through_tma) tma_store_drain(lane);
}

// Templated on types only, not the key (nvcc's host stubs cannot spell class-type
// template arguments): the GEMM config, the producer and where output rows go.
template <class Cfg, class Producer, bool PixelRows = false>
__global__ void __launch_bounds__(Cfg::threads, 1)
    conv_sm90_kernel(const __grid_constant__ typename Producer::params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __trap();  // sm_90a only (wgmma, setmaxnreg); run() never launches it elsewhere
#else
  using regs = conv_sm90_registers<Cfg>;
  extern __shared__ unsigned char smem_raw[];
  // The 128-byte swizzle pattern repeats every 1 KiB: slots must start on that boundary.
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* ring_a = smem;
  unsigned char* ring_b = smem + Cfg::stages * Cfg::a_stage_bytes;
  auto* full = reinterpret_cast<std::uint64_t*>(smem + Cfg::stages * Cfg::stage_bytes);
  std::uint64_t* empty = full + Cfg::stages;
  float* strips = reinterpret_cast<float*>(smem + Cfg::stages * Cfg::stage_bytes + barrier_block_bytes(Cfg::stages));
  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::stages; ++s) {
      mbarrier_init(&full[s], Producer::arrivals);
      mbarrier_init(&empty[s], Cfg::warpgroups_per_tile * 4);  // each warp of the consumers reading it
    }
    mbarrier_init_fence();
  }
  __syncthreads();
  wait_for_prerequisite_grids();  // launched as a dependent of a pre-pass (cluster_launch.cuh): its writes are visible
  const int warpgroup = threadIdx.x / 128;
  if (warpgroup == 0) {
    if constexpr (regs::reallocate) warpgroup_release_registers<regs::producer>();
    Producer::run(p, ring_a, ring_b, full, empty, threadIdx.x);
  } else {
    if constexpr (regs::reallocate) warpgroup_claim_registers<regs::consumer>();
    ring_mainloop<Cfg, Producer::gathered> mainloop(ring_a, ring_b, full, empty, warpgroup - 1);
    conv_consume_tiles<Cfg::key, Cfg, PixelRows>(p, mainloop, strips, warpgroup - 1, threadIdx.x % 128);
  }
  __syncthreads();  // no thread leaves while another may still wait on a barrier it feeds
#endif
}

}  // namespace kdecl::kernels::cuda::sm90
