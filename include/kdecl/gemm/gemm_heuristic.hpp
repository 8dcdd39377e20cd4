// Ranks GEMM kernels for a problem by a roofline estimate of their run time.
//
// The estimate is deliberately simple and deterministic: work is quantised to
// whole tiles and whole waves of tiles over the machine's processors; each
// tile runs at the arch's peak rate scaled by the pipeline's efficiency and by
// how well the tile's arithmetic intensity feeds the MMAs; the result is the
// larger of that and the time to move the operands. Figures (SM count, peaks,
// bandwidth, shared memory) come from the arch tables.
//
// It is split in two so the dispatcher can rank thousands of kernels in
// microseconds: a kernel_profile holds everything that depends only on the
// kernel (computed once, when the dispatcher indexes the registry), a
// problem_profile everything that depends only on the problem (once per call).
#pragma once

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl {

// What the estimate needs to know about the machine; filled from the arch tables.
struct machine_model {
  int processors = 1;            // SMs / CUs / host threads
  double peak_tflops = 0.1;      // for the key's compute dtype
  double bandwidth_gbs = 50.0;   // device memory
  double pipeline_efficiency = 1.0;  // share of peak the key's pipeline reaches at best
  double memory_efficiency = 1.0;    // share of the bandwidth its loads reach when streaming
  int shared_bytes_per_processor = 0;  // for occupancy; 0 = one block per processor
};

machine_model machine_model_of(const gemm_key& key);

// What the estimate needs of one kernel once the tile terms are known; small,
// because the dispatcher's hot loop streams one per candidate.
struct kernel_rates {
  float fit = 1;                // blocks per processor the shared-memory ring allows (1..4)
  float seconds_per_flop = 1;   // of one processor for this kernel, overheads included
  float launch_us = 3;
  bool persistent = false;      // one block per processor taking tiles round-robin (fit is 1)
  bool splits_k = false;        // splits K over a cluster when tiles are few (sm_90 TMA pipeline)
  // The epilogue of one tile (storing C from registers) where it does not overlap the
  // next tile's main loop; pingpong hides all but the last one (overlaps_epilogue).
  float epilogue_s_per_tile = 0;
  bool overlaps_epilogue = false;
  // A multicast cluster (sm_90) runs tiles in pairs along M or N: where that dimension has an
  // odd tile count, the last pair's second block loads for its partner and computes nothing,
  // but holds a processor for a tile's time (kernels/gemm/cuda/sm90/tile_scheduler.cuh).
  int cluster_m = 1, cluster_n = 1;
  // Share of the processor's rate a block reaches when it holds a single tile: a block-scaled
  // pingpong block then has one consumer busy, whose scaling nothing overlaps.
  float lone_tile_rate = 1;
  // Memory time x (1 + this): a streaming (gemv) block loads A's rows beside B's columns, chunk by
  // chunk from L1, tile_m of them per tile_n of B: issue slots the loads of B do not get.
  float stream_load_overhead = 0;
};

struct kernel_profile {
  double tile_m = 1, tile_n = 1, tile_k = 1;
  double bytes_a = 2, bytes_b = 2;      // element sizes, for L2 traffic
  double processors = 1, bandwidth = 1; // bandwidth: reachable bytes/s
  kernel_rates rates;
};
kernel_profile profile_of(const gemm_key& key, const machine_model& model);

struct problem_profile {
  double m = 1, n = 1, k = 1, batch = 1;
  double dram_bytes = 0;  // every operand (and D tensors) once
  // A's bytes a tile reads from L2 per byte its mainloop consumes: 1 for a GEMM; less where
  // one load serves several k-blocks (a convolution's halo tiles, kernels/conv/halo_tiles.hpp).
  double a_l2_share = 1;
};
problem_profile profile_of(const gemm_problem& normalized_problem);

// What depends on the problem and the tile shape only (shared by every kernel
// with that tile on one machine): tile counts, waves, memory time.
struct tile_terms {
  double tiles = 1;
  double tiles_m = 1, tiles_n = 1, batch = 1;  // the tile grid (tiles = their product)
  double flops_per_tile = 0;                  // padded work of one tile
  double processors = 1;
  int resident_cap = 1;    // blocks a processor can hold by tile count: min(4, ceil(tiles / processors))
  // Flops one processor must issue for the problem, given r resident blocks
  // (index r = 1..4): the whole waves times each block's padded work.
  double work[5] = {};
  double tiles_per_processor = 1;  // ceil(tiles / processors): a persistent block's tiles
  double memory_s = 0;
  // The same when the kernel splits K (for kernels with splits_k).
  double splits = 1;
  double split_work = 0;
  double split_memory_s = 0;
};
tile_terms terms_of(const kernel_profile& kernel, const problem_profile& problem);

// Estimated microseconds; lower is better. Never negative, never NaN.
double estimate_microseconds(const kernel_rates& kernel, const tile_terms& terms);
double estimate_microseconds(const kernel_profile& kernel, const problem_profile& problem);

// Convenience: both profiles built on the spot.
double estimate_microseconds(const gemm_key& key, const gemm_problem& normalized_problem);

}  // namespace kdecl
