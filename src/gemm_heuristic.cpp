#include "kdecl/gemm/gemm_heuristic.hpp"

#include <algorithm>
#include <cmath>

namespace kdecl {
namespace {

double ceil_div(double a, double b) { return std::ceil(a / b); }

double element_bytes(dtype d) { return std::max(1, bits_of(d)) / 8.0; }

}  // namespace

double estimate_microseconds(const gemm_key& key, const gemm_problem& p, const machine_model& mm) {
  const auto& a = key.algo;
  const double tm = a.tile.m, tn = a.tile.n, tk = a.tile.k;
  const double ea = element_bytes(p.sig.a), eb = element_bytes(p.sig.b), ec = element_bytes(p.sig.c);
  const double procs = std::max(1, mm.processors);

  // Tiles, and how many blocks share a processor: limited by the shared-memory
  // ring, and by there being fewer tiles than processors.
  const double tiles = ceil_div(double(p.m), tm) * ceil_div(double(p.n), tn) * double(p.batch);
  const double ring_bytes = std::max(1, a.stages) * (tm * ea + tn * eb) * tk;
  double fit = 1.0;
  if (mm.shared_bytes_per_processor > 0)
    fit = std::clamp(std::floor(mm.shared_bytes_per_processor / ring_bytes), 1.0, 4.0);
  const double resident = std::clamp(std::min(fit, ceil_div(tiles, procs)), 1.0, 4.0);
  const double slots = procs * resident;
  // A persistent pipeline spreads the last partial wave; others leave processors idle.
  const double waves = a.pipe == pipeline::tma_wgmma ? std::max(1.0, tiles / slots) : ceil_div(tiles, slots);

  // Each tile does its whole padded work on the tensor cores.
  const double k_padded = ceil_div(double(p.k), tk) * tk;
  const double flops_per_tile = 2.0 * tm * tn * k_padded;
  // A tile feeds its MMAs from shared memory at (tm + tn) * tk bytes per 2*tm*tn*tk flops;
  // below the intensity the pipeline needs, the MMAs starve.
  const double intensity = 2.0 * tm * tn / (tm * ea + tn * eb);
  const double needed = 32.0 * mm.pipeline_efficiency / 0.8;
  const double feed = std::min(1.0, intensity / needed);
  double sm_rate = mm.peak_tflops * 1e12 * mm.pipeline_efficiency * feed / procs;
  sm_rate *= std::pow(std::min(1.0, a.vector_bytes / 16.0), 0.25);  // narrow accesses cost issue slots
  sm_rate *= a.stages >= 3 ? 1.0 : 0.9;                              // shallow rings hide less latency
  const bool pads = a.pad_m == tristate::yes || a.pad_n == tristate::yes || a.pad_k == tristate::yes;
  const double overhead = (pads ? 1.02 : 1.0) * (a.epi == epilogue::cshuffle ? 1.0 : 1.01);
  const double compute_s = waves * flops_per_tile * resident / sm_rate * overhead;

  // Memory: every operand once from DRAM, tile re-reads from L2; with few
  // active processors neither bandwidth is reached.
  const double active = std::min(procs, tiles);
  const double reach = std::min(1.0, active / (0.5 * procs));
  const double b = double(p.batch);
  double dram = b * (double(p.m) * p.k * ea + double(p.k) * p.n * eb + double(p.m) * p.n * ec);
  dram += b * double(p.m) * p.n * ec * p.sig.num_d;
  const double l2 = tiles * (std::min(tm, double(p.m)) * ea + std::min(tn, double(p.n)) * eb) * double(p.k);
  const double bw = mm.bandwidth_gbs * 1e9 * reach;
  const double memory_s = std::max(dram / bw, l2 / (3.0 * bw));

  const double launch_us = key.algo.arch == arch_id::host ? 5.0 : 3.0;
  double us = std::max(compute_s, memory_s) * 1e6 + launch_us;
  return std::isfinite(us) && us > 0 ? us : 1e30;
}

}  // namespace kdecl

// ---------------------------------------------------------------------------
#include <thread>

#include "kdecl/arch/arch.hpp"

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
  mm.processors = spec.sm_count > 0 ? spec.sm_count : 104;  // AMD parts carry no reference figures yet
  mm.bandwidth_gbs = spec.mem_bandwidth_gbs > 0 ? spec.mem_bandwidth_gbs : 1600.0;
  mm.shared_bytes_per_processor = spec.smem_per_block;
  const dtype compute = key.sig.compute;
  double peak = 0.0;
  for (const auto& p : spec.peaks)
    if (p.compute == compute || (compute == dtype::bf8 && p.compute == dtype::fp8)) peak = p.tflops;
  mm.peak_tflops = peak > 0 ? peak : 100.0;
  // Share of peak each pipeline reaches at its best: wgmma streams the tensor
  // cores; mma.sync on Hopper issues at about half its rate.
  switch (key.algo.pipe) {
    case pipeline::tma_wgmma: mm.pipeline_efficiency = 0.80; break;
    case pipeline::cp_async: mm.pipeline_efficiency = key.algo.arch == arch_id::sm_90 ? 0.45 : 0.75; break;
    default: mm.pipeline_efficiency = 0.70; break;
  }
  if (compute == dtype::fp32) mm.pipeline_efficiency = 0.6;  // SIMT path
  return mm;
}

}  // namespace kdecl
