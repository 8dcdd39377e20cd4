#include "kdecl/gemm/gemm_heuristic.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "kdecl/arch/arch.hpp"

namespace kdecl {
namespace {

double element_bytes(dtype d) { return std::max(1, bits_of(d)) / 8.0; }

// Compute and memory overlap, but not perfectly: the smaller of the two still
// shows through a little (so a memory-bound problem prefers the tile that wastes
// the least MMA work).
double overlapped(double compute_s, double memory_s) {
  return std::max(compute_s, memory_s) + 0.3 * std::min(compute_s, memory_s);
}

}  // namespace

kernel_profile profile_of(const gemm_key& key, const machine_model& mm) {
  const auto& a = key.algo;
  kernel_profile kp;
  // A tma_wgmma key with column-major C tiles C^T (kernels/gemm/cuda/sm90/column_major_c.cuh):
  // its tile.m runs along the problem's N and tile.n along its M. The profile is the problem's.
  const bool tiles_transpose = a.pipe == pipeline::tma_wgmma && key.sig.lay.c == layout::col;
  kp.tile_m = tiles_transpose ? a.tile.n : a.tile.m;
  kp.tile_n = tiles_transpose ? a.tile.m : a.tile.n;
  kp.tile_k = a.tile.k;
  kp.bytes_a = element_bytes(key.sig.a);
  kp.bytes_b = element_bytes(key.sig.b);
  kp.processors = std::max(1, mm.processors);
  kp.bandwidth = mm.bandwidth_gbs * 1e9 * mm.memory_efficiency;
  kp.rates.persistent = a.pipe == pipeline::tma_wgmma;
  // The sm_90 kernel splits K inside a cluster when its fp32 partial tile fits
  // in the ring it no longer needs (see kernels/gemm/cuda/sm90/gemm_sm90.cuh).
  kp.rates.splits_k = a.pipe == pipeline::tma_wgmma && a.sched != scheduler::pingpong &&
                a.cluster_m * a.cluster_n == 1 &&  // a multicast cluster never splits K
                kp.tile_m * (kp.tile_n + 8) * 4 <= a.stages * (kp.tile_m + kp.tile_n) * kp.tile_k * kp.bytes_a;
  // The persistent kernel stores a tile's C (and reads its D) between two main loops: at
  // about twice a processor's share of the bandwidth (L2 absorbs the writes), a short-K
  // tile spends a fifth of its time there. pingpong runs it under the other consumer's
  // main loop (kernels/gemm/cuda/sm90/gemm_sm90_kernel.cuh).
  if (kp.rates.persistent) {
    const double c_bytes = kp.tile_m * kp.tile_n * element_bytes(key.sig.c) * (1 + key.sig.num_d);
    kp.rates.epilogue_s_per_tile = float(c_bytes / (2.0 * kp.bandwidth / kp.processors));
    kp.rates.overlaps_epilogue = a.sched == scheduler::pingpong;
  }
  kp.rates.launch_us = a.arch == arch_id::host ? 5.0f : 3.0f;
  kp.rates.cluster_m = std::max(1, a.cluster_m);
  kp.rates.cluster_n = std::max(1, a.cluster_n);

  // Occupancy allowed by the main loop's shared-memory ring. A persistent grid launches
  // min(tiles, processors) blocks whatever the ring would allow: one per processor.
  const double ring_bytes = std::max(1, a.stages) * (kp.tile_m * kp.bytes_a + kp.tile_n * kp.bytes_b) * kp.tile_k;
  if (mm.shared_bytes_per_processor > 0 && !kp.rates.persistent)
    kp.rates.fit = float(std::clamp(std::floor(mm.shared_bytes_per_processor / ring_bytes), 1.0, 4.0));

  // A tile feeds its MMAs from shared memory at (tm + tn) * tk bytes per 2*tm*tn*tk flops;
  // below the intensity the pipeline needs, the MMAs starve. A streaming (gemv) kernel has no
  // MMAs to feed: its CUDA cores multiply what arrives from memory (the memory term bounds it).
  const bool streams = a.pipe == pipeline::gemv;
  // Each step a lane loads chunks of A's rows beside its chunks of B's columns: fewer columns a
  // block, more of its loads are A's. H200, the models' decode layers at M = 1 and 4
  // (docs/perf/h200-2026-12-06-gemv/): 1 column a block ran at 0.74 of the best gemv kernel, 2 at
  // 0.96, 4 at 0.98, whatever tile.m; 0.3 / columns orders them so.
  if (streams) kp.rates.stream_load_overhead = float(0.3 / a.tile.n);
  const double intensity = 2.0 * kp.tile_m * kp.tile_n / (kp.tile_m * kp.bytes_a + kp.tile_n * kp.bytes_b);
  const double needed = 32.0 * mm.pipeline_efficiency / 0.8;
  const double feed = streams ? 1.0 : std::min(1.0, intensity / needed);
  double sm_rate = mm.peak_tflops * 1e12 * mm.pipeline_efficiency * feed / kp.processors;
  sm_rate *= std::pow(std::min(1.0, a.vector_bytes / 16.0), 0.25);  // narrow accesses cost issue slots
  // Below 4 bytes cp.async has no copy size: the kernel stages loads through registers
  // (a global round trip per k tile that the ring no longer hides).
  if (a.pipe == pipeline::cp_async && a.vector_bytes < 4) sm_rate *= 0.5;
  if (!streams) sm_rate *= a.stages >= 3 ? 1.0 : 0.9;                // shallow rings hide less latency
  // A block-scaled kernel scales each k-block's partial sums in its consumer warpgroups. With one
  // consumer per block (cooperative, warps (4,1,1)) the tensor cores wait meanwhile; two consumers
  // (or pingpong's two tiles) overlap one's scaling with the other's MMAs. H100, DeepSeek-V3 shapes and
  // squares (docs/perf/h100-2026-12-05-block-scaled-overlap/call3): the one-consumer 64x128 tile ran
  // 1.2-1.6x its estimate on the large problems, the two-consumer tiles within 10% of theirs.
  // A pingpong block holding one tile is in the same state (kernel_rates::lone_tile_rate).
  constexpr double lone_consumer_rate = 0.7;
  const bool block_scaled = key.sig.variant == gemm_variant::block_scaled && a.pipe == pipeline::tma_wgmma;
  if (block_scaled && a.sched != scheduler::pingpong && a.warps.m * a.warps.n == 4) sm_rate *= lone_consumer_rate;
  if (block_scaled && a.sched == scheduler::pingpong) kp.rates.lone_tile_rate = float(lone_consumer_rate);
  const bool pads = a.pad_m == tristate::yes || a.pad_n == tristate::yes || a.pad_k == tristate::yes;
  // 64-bit offsets cost a little address arithmetic: a 32-bit kernel wins where both fit.
  const double overhead = (pads ? 1.02 : 1.0) * (a.epi == epilogue::cshuffle ? 1.0 : 1.01) *
                          (a.index_bits == 64 && a.arch != arch_id::host ? 1.01 : 1.0);
  kp.rates.seconds_per_flop = float(overhead / sm_rate);
  return kp;
}

problem_profile profile_of(const gemm_problem& p) {
  problem_profile pp{double(p.m), double(p.n), double(p.k), double(p.batch), 0.0};
  const double ea = element_bytes(p.sig.a), eb = element_bytes(p.sig.b), ec = element_bytes(p.sig.c);
  pp.dram_bytes = pp.batch * (pp.m * pp.k * ea + pp.k * pp.n * eb + pp.m * pp.n * ec * (1 + p.sig.num_d));
  return pp;
}

tile_terms terms_of(const kernel_profile& kp, const problem_profile& pp) {
  tile_terms t;
  t.tiles_m = std::ceil(pp.m / kp.tile_m);
  t.tiles_n = std::ceil(pp.n / kp.tile_n);
  t.batch = pp.batch;
  t.processors = kp.processors;
  t.tiles = t.tiles_m * t.tiles_n * pp.batch;
  t.resident_cap = int(std::clamp(std::ceil(t.tiles / kp.processors), 1.0, 4.0));
  const double k_blocks = std::ceil(pp.k / kp.tile_k);
  const double flops_per_tile = 2.0 * kp.tile_m * kp.tile_n * k_blocks * kp.tile_k;
  t.flops_per_tile = flops_per_tile;
  for (int r = 1; r <= 4; ++r) t.work[r] = std::ceil(t.tiles / (kp.processors * r)) * flops_per_tile * r;
  t.tiles_per_processor = std::ceil(t.tiles / kp.processors);
  // Memory: every operand once from DRAM, tile re-reads from L2; with few
  // active processors neither bandwidth is reached.
  const double l2 =
      t.tiles * (std::min(kp.tile_m, pp.m) * kp.bytes_a * pp.a_l2_share + std::min(kp.tile_n, pp.n) * kp.bytes_b) * pp.k;
  auto memory_with = [&](double blocks) {
    const double active = std::min(kp.processors, blocks);
    const double bw = kp.bandwidth * std::min(1.0, active / (0.5 * kp.processors));
    return std::max(pp.dram_bytes / bw, l2 / (3.0 * bw));
  };
  t.memory_s = memory_with(t.tiles);
  // Split-K when there are at most half as many tiles as processors: up to 8
  // pieces, each at least 4 k-blocks deep, all resident at once; 5% for the reduction.
  if (t.tiles <= kp.processors / 2)
    t.splits = std::clamp(std::min({8.0, std::floor(kp.processors / t.tiles), std::floor(k_blocks / 4)}), 1.0, 8.0);
  t.split_work = flops_per_tile / t.splits * 1.05;
  t.split_memory_s = memory_with(t.tiles * t.splits);
  return t;
}

double estimate_microseconds(const kernel_rates& r, const tile_terms& t) {
  double compute_s, memory_s;
  if (r.splits_k && t.splits > 1) {
    compute_s = t.split_work * r.seconds_per_flop;
    memory_s = t.split_memory_s;
  } else {
    // Blocks sharing a processor: what the ring allows, and no more than there are tiles.
    // Whole waves in both kinds of grid: a persistent grid deals tiles round-robin to one
    // block per processor (kernels/gemm/cuda/sm90/tile_scheduler.cuh), so the busiest block
    // runs ceil(tiles / processors) of them and a partial last wave costs a whole tile time.
    const int resident = std::min(int(r.fit), t.resident_cap);
    const double lone = t.tiles_per_processor <= 1 ? r.lone_tile_rate : 1.0;
    compute_s = t.work[resident] * r.seconds_per_flop / lone +
                (r.overlaps_epilogue ? 1.0 : t.tiles_per_processor) * r.epilogue_s_per_tile;
    if (r.cluster_m * r.cluster_n > 1) {
      // Pairs of tiles (one block each, one per processor): an odd tile count along the
      // cluster's dimension leaves a partner block idle for a whole tile's time.
      const double blocks = std::ceil(t.tiles_m / r.cluster_m) * r.cluster_m * std::ceil(t.tiles_n / r.cluster_n) *
                            r.cluster_n * t.batch;
      const double waves = std::ceil(blocks / t.processors);
      compute_s = waves * t.flops_per_tile * r.seconds_per_flop + (r.overlaps_epilogue ? 1.0 : waves) * r.epilogue_s_per_tile;
    }
    memory_s = t.memory_s * (1.0 + r.stream_load_overhead);
  }
  const double us = overlapped(compute_s, memory_s) * 1e6 + r.launch_us;
  return us > 0 && us < 1e30 ? us : 1e30;  // also maps NaN to "never"
}

double estimate_microseconds(const kernel_profile& kp, const problem_profile& pp) {
  return estimate_microseconds(kp.rates, terms_of(kp, pp));
}

double estimate_microseconds(const gemm_key& key, const gemm_problem& normalized_problem) {
  return estimate_microseconds(profile_of(key, machine_model_of(key)), profile_of(normalized_problem));
}

}  // namespace kdecl

// ---------------------------------------------------------------------------

namespace kdecl {

machine_model machine_model_of(const gemm_key& key) {
  const auto& spec = arch::spec_of(key.algo.arch);
  machine_model mm;
  if (key.algo.arch == arch_id::host) {
    mm.processors = std::max(1u, std::thread::hardware_concurrency());
    mm.peak_tflops = 0.02 * mm.processors;  // ~20 GFLOP/s per core for the blocked host kernel
    mm.bandwidth_gbs = 20.0;
    mm.pipeline_efficiency = 1.0;
    return mm;
  }
  mm.processors = spec.sm_count;
  mm.bandwidth_gbs = spec.mem_bandwidth_gbs;
  mm.shared_bytes_per_processor = spec.smem_per_block;
  const dtype compute = key.sig.compute;
  const double peak = spec.peak_tflops(compute == dtype::bf8 ? dtype::fp8 : compute);
  mm.peak_tflops = peak > 0 ? peak : 100.0;
  // Share of peak each pipeline reaches at its best: wgmma streams the tensor
  // cores; mma.sync on Hopper issues at about half its rate.
  // Measured on an H100 (docs/perf): TMA streams reach ~78% of the datasheet
  // bandwidth, cp.async ~67%.
  switch (key.algo.pipe) {
    case pipeline::tma_wgmma: mm.pipeline_efficiency = 0.80; mm.memory_efficiency = 0.78; break;
    case pipeline::cp_async:
      mm.pipeline_efficiency = key.algo.arch == arch_id::sm_90 ? 0.45 : 0.75;
      mm.memory_efficiency = 0.67;
      break;
    case pipeline::gemv: {
      mm.memory_efficiency = 0.86;
      if (key.algo.warp_tile.m == 16) {
        // mma.sync (kernels/gemm/cuda/gemv/gemv_mma.cuh): at about half the tensor cores' rate on
        // Hopper, as the cp_async pipeline; its 16 rows count whatever M is.
        mm.pipeline_efficiency = key.algo.arch == arch_id::sm_90 ? 0.45 : 0.75;
        return mm;
      }
      // CUDA cores at the fp32 rate, half of it spent widening 16-bit values and reducing; its
      // loads reach 86% of the datasheet bandwidth (the probe it grew from: 80-100% of the copy
      // bandwidth at M = 1, where TMA tiles reach 70-79%; H200, docs/perf/README.md).
      const double fp32 = spec.peak_tflops(dtype::fp32);
      mm.peak_tflops = fp32 > 0 ? fp32 : mm.peak_tflops;
      mm.pipeline_efficiency = 0.5;
      return mm;
    }
    default: mm.pipeline_efficiency = 0.70; mm.memory_efficiency = 0.70; break;
  }
  if (compute == dtype::fp32) mm.pipeline_efficiency = 0.6;  // SIMT path
  return mm;
}

}  // namespace kdecl
