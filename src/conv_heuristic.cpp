#include "kdecl/conv/conv_heuristic.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "kdecl/arch/arch.hpp"
#include "kdecl/dsl/conv_rules.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"
#include "kdecl/kernels/conv/bwd_data_stored_weights.hpp"
#include "kdecl/kernels/conv/direct_window.hpp"
#include "kdecl/kernels/conv/halo_plan.hpp"
#include "kdecl/kernels/conv/narrow_bwd_data_plan.hpp"
#include "kdecl/kernels/conv/rows_plan.hpp"
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"

namespace kdecl {

gemm_key implicit_gemm_key(const grouped_conv_key& key) {
  gemm_key g = dsl::conv_rules::implicit_gemm(key);
  g.sig.compute = g.sig.a;
  // The narrowest of the three tensors' accesses bounds the kernel's issue rate.
  auto bytes = [](int elements, dtype d) { return std::max(1, elements * std::max(1, bits_of(d) / 8)); };
  g.algo.vector_bytes = std::min({bytes(key.algo.vector_in, key.sig.in), bytes(key.algo.vector_wei, key.sig.wei),
                                  bytes(key.algo.vector_out, key.sig.out)});
  return g;
}

kernel_profile conv_kernel_profile(const grouped_conv_key& key) {
  const gemm_key g = implicit_gemm_key(key);
  kernel_profile kp = profile_of(g, machine_model_of(g));
  // The sm_90 backward-weight plans its own depth split (conv_problem_profile below).
  if (key.sig.dir == conv_direction::bwd_weight) kp.rates.splits_k = false;
  return kp;
}

namespace {

// Sum over the stride phases of (input positions in the phase) x (taps reaching them), per dimension.
double phase_work(std::int64_t size, std::int64_t filter, std::int64_t stride, std::int64_t dilation,
                  std::int64_t pad) {
  std::vector<double> rows(std::size_t(stride), 0.0), taps(std::size_t(stride), 0.0);
  for (std::int64_t i = 0; i < size; ++i) rows[std::size_t((i + pad) % stride)] += 1;
  for (std::int64_t f = 0; f < filter; ++f) taps[std::size_t(f * dilation % stride)] += 1;
  double work = 0;
  for (std::size_t r = 0; r < rows.size(); ++r) work += rows[r] * taps[r];
  return work;
}

}  // namespace

problem_profile conv_problem_profile(const grouped_conv_problem& p) {
  const auto e = p.implicit_gemm();
  problem_profile pp{double(e.m), double(e.n), double(e.k), double(p.g), p.bytes()};
  if (p.dir == conv_direction::bwd_data) {
    // Depth per input pixel, averaged over the stride phases.
    double work = 1;
    for (int s = 0; s < 3; ++s)
      work *= phase_work(p.input_dims[s], p.filter_dims[s], p.stride_dims[s], p.dilation_dims[s], p.pad_left_dims[s]);
    pp.k = std::max(1.0, double(p.k_per_group()) * work / double(std::max<std::int64_t>(1, p.input_pixels())));
  }
  return pp;
}

namespace {

// The TMA-staged depthwise kernel (direct_conv stages 2, kernels/conv/cuda/direct/dw_staged_sm90.cuh):
// bytes over bandwidth (every tensor once, each tile's halo re-read from L2 counted at a fifth)
// against its issue: per output element a multiply-add per tap, per input element a thread reads
// from shared memory a conversion and a share of the vector's load, per vector a store, at 60%
// of the fp32 rate (ncu on an H200, a 7x7 layer: 1.6 instructions per multiply-add, 65% of the
// issue slots used at 12 warps per SM); blocks beyond the SMs' resident share run in waves.
double staged_depthwise_estimate_us(const grouped_conv_key& key, const grouped_conv_problem& p, double fp32_tflops,
                                    double bandwidth) {
  const double th = key.algo.tile.m, tw = key.algo.tile.n, cb = key.algo.tile.k;
  const double v = key.algo.vector_out;
  const double sy = double(p.stride_dims[1]), sx = double(p.stride_dims[2]);
  const double fy = double(p.filter_dims[1]), fx = double(p.filter_dims[2]);
  const double box = ((th - 1) * sy + fy) * ((tw - 1) * sx + fx);
  const double halo = std::max(0.0, box / (th * tw * sy * sx) - 1.0);
  const double in_bytes = double(p.elements(conv_tensor::input)) * std::max(1, bits_of(p.in_type) / 8);
  const double bytes = p.bytes() + 0.2 * halo * in_bytes;
  const auto ceil_to = [](double x, double m) { return std::ceil(x / m) * m; };
  const double ho = double(p.output_dim(1)), wo = double(p.output_dim(2));
  const double used = double(p.k) / ceil_to(double(p.k), cb) * ho / ceil_to(ho, th) * wo / ceil_to(wo, tw);
  const double read_per_output = kernels::direct_reads_per_output(key, p);
  const double outputs = double(p.elements(conv_tensor::output));
  const double ops = outputs * (fy * fx + read_per_output * (1.0 + 1.0 / v) + 1.0 / v);
  const double compute_s = ops / (fp32_tflops * 1e12 / 2 * 0.6 * used);
  // Waves: tiles x channel blocks over the SMs (about two resident blocks each).
  const double units = double(p.n) * std::ceil(ho / th) * std::ceil(wo / tw) * std::ceil(double(p.k) / cb);
  const double slots = 2.0 * spec_of(key.algo.arch).sm_count;
  const double wave_share = units / (std::ceil(units / slots) * slots);
  const double memory_s = bytes / (bandwidth * std::sqrt(used));
  return (std::max(memory_s, compute_s) / wave_share + 0.3 * std::min(memory_s, compute_s)) * 1e6 + 3.0;
}

// The narrow-channel backward-data path (kernels/conv/narrow_bwd_data_plan.hpp: the direct kernels'
// in 1-D and 2-D, the sm_90 implicit GEMM keys' in 3-D):
// its m16n8k16 MMAs (16 dx pixels of a phase x 8 channels x 16 dy channels, once per tap of the
// phase) each wait for a 512-byte ldmatrix, so shared memory at 128 bytes per clock bounds them
// to a quarter of the tensor peak; against every tensor once from memory. Element-wise staging
// (direct keys narrower than 16 bytes; the implicit GEMM keys stage 16 bytes where K/G allows) costs
// about as much again as the MMAs.
double narrow_bwd_data_estimate_us(const grouped_conv_key& key, const grouped_conv_problem& p) {
  const arch::arch_spec& s = spec_of(key.algo.arch);
  const double bandwidth = s.mem_bandwidth_gbs * 1e9 * 0.85;
  const double tensor_tflops = s.peak_tflops(p.compute_type) > 0 ? s.peak_tflops(p.compute_type) : 100.0;
  double work = double(p.n);  // sum over phases of pixels x taps
  for (int slot = 0; slot < 3; ++slot)
    work *= phase_work(p.input_dims[slot], p.filter_dims[slot], p.stride_dims[slot], p.dilation_dims[slot],
                       p.pad_left_dims[slot]);
  const double k_steps = std::ceil(double(p.k) / kernels::narrow_bwd_data_plan::chunk_k) *
                         (kernels::narrow_bwd_data_plan::chunk_k / 16);
  const double mma_flops = work / 16.0 * k_steps * (2.0 * 16 * 8 * 16);
  const bool vector16 = key.algo.pipe == pipeline::direct_conv
                            ? key.algo.vector_out * std::max(1, bits_of(p.out_type) / 8) == 16
                            : p.k % 8 == 0;
  const double compute_s = mma_flops / (tensor_tflops * 1e12 * 0.25) * (vector16 ? 1.0 : 2.0);
  const double memory_s = p.bytes() / bandwidth;
  return (std::max(memory_s, compute_s) + 0.3 * std::min(memory_s, compute_s)) * 1e6 + 3.0;
}

// direct_conv (kernels/conv/cuda/direct/): bytes over bandwidth, or its CUDA-core
// multiply-adds, whichever is longer. Bytes: every tensor once, the input's halo
// re-read from L2 counted at a fifth; the multiply-adds run at 30% of the fp32
// peak off the depthwise path (scalar shared-memory reads per channel), the
// depthwise path counts its multiply-adds and conversions (below).
double direct_estimate_us(const grouped_conv_key& key, const grouped_conv_problem& p) {
  const arch::arch_spec& s = spec_of(key.algo.arch);
  const double fp32_tflops = s.peak_tflops(dtype::fp32) > 0 ? s.peak_tflops(dtype::fp32) : 20.0;
  const double bandwidth = s.mem_bandwidth_gbs * 1e9 * 0.85;
  if (key.algo.stages == 2) return staged_depthwise_estimate_us(key, p, fp32_tflops, bandwidth);
  const double tm = key.algo.tile.m, tn = key.algo.tile.n;
  const double rows = (tm - 1) * double(p.stride_dims[1]) + (double(p.filter_dims[1]) - 1) * double(p.dilation_dims[1]) + 1;
  const double cols = (tn - 1) * double(p.stride_dims[2]) + (double(p.filter_dims[2]) - 1) * double(p.dilation_dims[2]) + 1;
  const double halo = std::max(0.0, rows * cols / (tm * tn * double(p.stride_dims[1] * p.stride_dims[2])) - 1.0);
  const double in_bytes = double(p.elements(conv_tensor::input)) * std::max(1, bits_of(p.in_type) / 8);
  const double bytes = p.bytes() + 0.2 * halo * in_bytes;
  const bool one_channel = p.c_per_group() == 1 && p.k_per_group() == 1;
  // Narrow vectors issue more loads and stores per byte.
  const double vector_bytes = double(key.algo.vector_out) * std::max(1, bits_of(p.out_type) / 8);
  const double issue = std::pow(std::min(1.0, vector_bytes / 16.0), 0.25);
  // Idle threads: channel lanes past K and pixels past the output's edge in the last tiles.
  const double tk = key.algo.tile.k;
  const auto ceil_to = [](double v, double m) { return std::ceil(v / m) * m; };
  const double used = double(p.k) / ceil_to(double(p.k), tk) * double(p.output_dim(1)) /
                      ceil_to(double(p.output_dim(1)), tm) * double(p.output_dim(2)) / ceil_to(double(p.output_dim(2)), tn);
  const double memory_s = bytes / (bandwidth * issue * std::sqrt(used));
  // Off the depthwise path: scalar shared-memory reads per input channel (30% of the fp32 peak),
  // or 16-byte reads of whole groups where C/G = K/G = 4, 8, 16 or 32 with 8-element vectors.
  const std::int64_t cg = p.c_per_group();
  const bool group_vectors = key.algo.vector_out == 8 && cg == p.k_per_group() && (cg == 4 || cg == 8 || cg == 16 || cg == 32);
  // The group path reads a thread's taps once per pixel run: more pixels per thread, fewer
  // shared-memory reads per multiply-add (ResNeXt at batch 32 on an H100: 8 pixels per thread
  // beat 2 by 15% with 4 channels per group, 4 beat 2 with 8).
  const double ppt = key.algo.warp_tile.m;
  const double group_share = 0.9 * ppt / (ppt + 2.0);
  double compute_s = p.flops() / (fp32_tflops * 1e12 * (group_vectors ? group_share : 0.3) * used);
  if (one_channel) {
    // Depthwise (direct_dw_fwd_kernel): per output element, one multiply-add per tap plus one
    // conversion per input element loaded: a sliding window of (ppt - 1) x stride + filter
    // columns per ppt pixels and filter row (dilation 1 along W), else one per tap and pixel.
    const double ppt = key.algo.warp_tile.m, fy = double(p.filter_dims[1]), fx = double(p.filter_dims[2]);
    const double sx = double(p.stride_dims[2]);
    const bool slides = p.dilation_dims[2] == 1 && (sx == 1 || sx == 2) && p.filter_dims[1] == p.filter_dims[2] &&
                        (fx == 3 || fx == 5 || fx == 7);
    const double loads = slides ? fy * ((ppt - 1) * sx + fx) / ppt : fy * fx;
    // Per output element a multiply-add per tap and a conversion per loaded element; per
    // vector load an address, the load and a select (narrow vectors issue more of them).
    const double vectors_out = double(p.elements(conv_tensor::output)) / double(key.algo.vector_out);
    const double ops = double(p.elements(conv_tensor::output)) * (fy * fx + loads) + vectors_out * loads * 4.0;
    compute_s = ops / (fp32_tflops * 1e12 / 2 * 0.7 * used);
    // L1: a warp's load touches one 128-byte line per pixel when its lanes span 128 bytes,
    // more lines (wavefronts) per byte when a pixel's vectors are narrower (few lanes).
    const double lanes = std::max(1.0, tk / double(key.algo.vector_out));
    const double line_share = std::min(1.0, lanes * vector_bytes / 128.0);
    const double wavefronts = vectors_out * loads * (vector_bytes / 128.0) / line_share;
    compute_s = std::max(compute_s, wavefronts / (fp32_tflops * 1e12 / 256 * 0.8 * used));
  }
  return (std::max(memory_s, compute_s) + 0.3 * std::min(memory_s, compute_s)) * 1e6 + 3.0;
}

}  // namespace

problem_profile conv_problem_profile(const grouped_conv_key& key, const grouped_conv_problem& p, int processors) {
  problem_profile pp = conv_problem_profile(p);
  if (const int merge = key.algo.groups_to_merge; merge > 1 && p.g % merge == 0) {
    // Merged groups (kernels/conv/merged_groups.hpp): G / merge GEMMs merge times wider and
    // deeper, the block-diagonal weights' zeros multiplied too.
    pp.n *= merge;
    pp.k *= merge;
    pp.batch /= merge;
    // A forward launch whose view TMA loads (m x C/G a multiple of 64) first writes the view's
    // block-diagonal weights (m times the weights) and reads them back.
    if (key.sig.dir == conv_direction::fwd && key.algo.pipe == pipeline::tma_wgmma && merge * p.c_per_group() % 64 == 0)
      pp.dram_bytes += 2.0 * merge * double(p.elements(conv_tensor::weight)) * std::max(1, bits_of(p.wei_type) / 8);
  }
  if (key.sig.spec == conv_specialization::stride1 && key.algo.pipe == pipeline::tma_wgmma) {
    // Halo tiles (kernels/conv/halo_tiles.hpp) of the forward convolution (a stride-1 backward-data's
    // forward equivalent): M counts the tiles' pixels, those past the output's edge included; one box
    // of input rows serves every tap of a filter row and depth.
    if (const auto h = kernels::halo_plan_of(p, key.algo.tile.m)) {
      const kernels::halo_tiling& t = h->tiling;
      pp.m = double(t.rows());
      pp.a_l2_share = double(t.box_rows) * t.box_cols / (double(t.tile_m) * double(h->taps_per_plane));
    }
  }
  if (key.sig.spec == conv_specialization::stride1_rows && key.algo.pipe == pipeline::tma_wgmma) {
    // Streamed rows (kernels/conv/cuda/sm90/conv_fwd_rows_sm90.cuh) of the forward convolution:
    // M counts the strips' pixels (a row's last strip padded); each input row (the strip and 8
    // columns of reach) is read once for all nine taps.
    if (const auto r = kernels::rows_plan_of(p, key.algo.tile.m)) {
      pp.m = r->computed_pixels();
      pp.a_l2_share = double(r->pixels + dsl::conv_rules::stride1_rows_reach_columns) /
                      (double(r->pixels) * double(p.filter_taps()));
    }
  }
  const bool splits_by_plan = key.algo.pipe == pipeline::cp_async || backend_of(key.algo.arch) == backend::hip;
  if (key.sig.dir == conv_direction::bwd_weight && splits_by_plan && key.algo.arch != arch_id::host) {
    // The cp_async and HIP bwd_weight split their long depth into `s` ranges (conv_bwd_plan.hpp): s times
    // the batch of GEMMs s times shallower, plus the fp32 partials written and read once.
    const int s =
        kernels::bwd_weight_gpu_splits(p, key.algo.tile.m, key.algo.tile.n, key.algo.tile.k, processors);
    if (s > 1) {
      pp.dram_bytes += 8.0 * s * pp.batch * pp.m * pp.n;  // partials: 4 bytes written, 4 read
      pp.k = std::max(1.0, pp.k / s);
      pp.batch *= s;
    }
  }
  if (key.sig.dir == conv_direction::bwd_weight && key.algo.pipe == pipeline::tma_wgmma) {
    // The sm_90 bwd_weight (conv_bwd_weight_sm90.cuh): cluster x ranges depth ranges, the
    // ranges' fp32 partials written and read once (the cluster's reduce in shared memory).
    // Offline there is no cluster capacity to ask: whole clusters of the SMs.
    const auto split = kernels::cuda::sm90::bwd_weight_sm90_split(p, key.algo.tile.m, key.algo.tile.n, key.algo.tile.k,
                                                                  processors, nullptr, true);
    if (split.ranges > 1) pp.dram_bytes += 8.0 * split.ranges * pp.batch * pp.m * pp.n;
    pp.k = std::max(1.0, pp.k / split.total());
    pp.batch *= split.total();
  }
  if (key.sig.dir == conv_direction::bwd_data && key.algo.pipe == pipeline::tma_wgmma &&
      kernels::bwd_data_as_gemm_reason(p) && !kernels::bwd_data_phases_read_stored_weights(key, p)) {
    // It first copies the weights flipped and transposed (conv_bwd_data_sm90.cuh): read and written once.
    // (1x1 layers without padding run as a GEMM on the weights as they are; the phases read W as
    // stored where TMA maps it: bwd_data_stored_weights.hpp.)
    pp.dram_bytes += 2.0 * double(p.elements(conv_tensor::weight)) * std::max(1, bits_of(p.wei_type) / 8);
  }
  return pp;
}

double group_padding_factor(const grouped_conv_key& key, const grouped_conv_problem& p) {
  // ResNeXt-50 layer2, K/G = 8 in a 32-wide tile: 133 us measured against 25 us estimated
  // without this factor on an H100 (docs/perf/h100-2026-11-23-dwconv-s16-run1).
  // The GEMM's N per group: K/G forward, C/G for the sm_90 backward-data (a forward convolution into dx).
  const bool as_forward = key.sig.dir == conv_direction::bwd_data && key.algo.pipe == pipeline::tma_wgmma;
  const std::int64_t n = key.algo.groups_to_merge * (as_forward ? p.c_per_group() : p.k_per_group());
  if (key.algo.pipe == pipeline::direct_conv || (key.sig.dir != conv_direction::fwd && !as_forward) || p.g <= 1 ||
      n >= key.algo.tile.n)
    return 1.0;
  return double(key.algo.tile.n) / double(std::max<std::int64_t>(1, n));
}

double estimate_microseconds(const grouped_conv_key& key, const grouped_conv_problem& p) {
  // Stems' backward-data on the narrow-channel kernel: the direct keys' (1-D, 2-D) and the sm_90 keys' (3-D).
  if (kernels::narrow_bwd_data_plan::runs_on_path(key, p)) return narrow_bwd_data_estimate_us(key, p);
  if (key.algo.pipe == pipeline::direct_conv) return direct_estimate_us(key, p);
  const kernel_profile kp = conv_kernel_profile(key);
  return estimate_microseconds(kp, conv_problem_profile(key, p, static_cast<int>(kp.processors))) *
         group_padding_factor(key, p);
}

}  // namespace kdecl
