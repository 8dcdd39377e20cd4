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

struct kernel_profile {
  double tile_m = 1, tile_n = 1, tile_k = 1;
  double fit = 1;          // blocks per processor the shared-memory ring allows (1..4)
  double sm_rate = 1;      // flop/s one processor gives this kernel
  double seconds_per_flop = 1;  // 1 / sm_rate
  double overhead = 1;     // multiplicative cost of padding checks and epilogue kind
  double bytes_a = 2, bytes_b = 2;  // element sizes, for L2 traffic
  bool persistent = false; // spreads a partial last wave over all processors
  bool splits_k = false;   // splits K over a cluster when tiles are few (sm_90 TMA pipeline)
  double processors = 1, bandwidth = 1, launch_us = 3;  // bandwidth: reachable bytes/s
};
kernel_profile profile_of(const gemm_key& key, const machine_model& model);

struct problem_profile {
  double m = 1, n = 1, k = 1, batch = 1;
  double dram_bytes = 0;  // every operand (and D tensors) once
};
problem_profile profile_of(const gemm_problem& normalized_problem);

// What depends on the problem and the tile shape only (shared by every kernel
// with that tile on one machine): tile counts, waves, memory time.
struct tile_terms {
  double tiles = 1;
  double tiles_per_processor = 1;  // ceil(tiles / processors)
  double waves[5] = {};            // ceil(tiles / (processors * r)) for r = 1..4 resident blocks
  double fractional_waves[5] = {}; // max(1, tiles / (processors * r)): a persistent grid's waves
  double flops_per_tile = 0;       // with K padded to the tile
  double memory_s = 0;
  // The same figures when the kernel splits K (for kernels with splits_k).
  double splits = 1;
  double split_memory_s = 0;
};
tile_terms terms_of(const kernel_profile& kernel, const problem_profile& problem);

// Estimated microseconds; lower is better. Never negative, never NaN.
double estimate_microseconds(const kernel_profile& kernel, const tile_terms& terms);
double estimate_microseconds(const kernel_profile& kernel, const problem_profile& problem);

// Convenience: both profiles built on the spot.
double estimate_microseconds(const gemm_key& key, const gemm_problem& normalized_problem);

}  // namespace kdecl
