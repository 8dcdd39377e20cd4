#include "kdecl/tuning/features.hpp"

#include <algorithm>
#include <cmath>

#include "kdecl/arch/reference_memory_clock.hpp"
#include "kdecl/gemm/gemm_heuristic.hpp"

namespace kdecl::tuning {

const std::array<std::string_view, feature_count>& feature_names() {
  static constexpr std::array<std::string_view, feature_count> names{
      "log2_m", "log2_n", "log2_k", "log2_batch",
      "tile_m", "tile_n", "tile_k",
      "waste_m", "waste_n", "waste_k",          // share of the padded tile work that is padding, per dimension
      "log2_tiles", "waves", "tail",            // output tiles; tiles / (processors x blocks per processor); last wave's fill
      "k_iterations",                           // ceil(K / tile_k)
      "log2_intensity", "tile_intensity",       // problem flops per byte; tile_m*tile_n/(tile_m+tile_n)
      "alignment", "vector_bytes",
      "vector_share",                           // vector_bytes / alignment: below 1, a narrower access than the problem allows
      "c_alignment",                            // of C's and D's strides and pointers
      "pipeline", "stages", "warps_mn", "warp_tile_m", "warp_tile_n", "cluster",
      "split_k", "persistent", "blocks_per_processor",
      "log2_estimate_us", "estimate_ratio",     // the analytical model: its estimate, and relative to the best candidate's
      "layout", "element_bytes", "epilogue",
      "pingpong",                               // two consumers on alternate tiles (epilogue under main loop)
      "cluster_n",                              // the cluster's extent along N (1x2 and 2x1 share "cluster")
      "log2_tiles_m", "log2_tiles_n",           // output tiles along M and along N (one batch)
      "useful_share",                           // (1 - waste_m) (1 - waste_n): the tiles' output that is the problem's
      "wave_share",                             // waves / ceil(waves): the busy share of the processors' slots
      "work_share",                             // their product
      "ab_row_alignment",                       // lowest set bit of A's and B's leading dimensions in bytes, to 256
      "log2_tile_loads", "tile_loads_share",    // bytes of A and B all tiles load (from L2 mostly); over the operands' bytes
      "memory_clock_mhz"};                      // the device's (device_facts)
  return names;
}

namespace {

// The largest power of two, up to `cap`, that divides `ld` elements of dtype `d` in bytes.
int byte_alignment(std::int64_t ld, dtype d, int cap) {
  const std::uint64_t bytes = std::uint64_t(std::max<std::int64_t>(ld, 1)) * std::uint64_t(std::max(1, bits_of(d) / 8));
  return int(std::min<std::uint64_t>(std::uint64_t(cap), bytes & (~bytes + 1)));
}

}  // namespace

int memory_clock_for(device_facts device, arch_id arch) {
  return device.memory_clock_mhz > 0 ? device.memory_clock_mhz : arch::reference_memory_clock_mhz(arch);
}

alignments alignment_class(const gemm_problem& p) {
  auto fold = [](int& a, std::int64_t v, dtype d) {
    if (v > 0) a = std::min(a, byte_alignment(v, d, 16));
  };
  alignments a;
  fold(a.ab, p.lda, p.sig.a);
  fold(a.ab, p.ldb, p.sig.b);
  fold(a.cd, p.ldc, p.sig.c);
  if (p.sig.variant == gemm_variant::multi_d) fold(a.cd, p.ldd, p.sig.c);
  if (p.batch > 1) {
    fold(a.ab, p.stride_a, p.sig.a);
    fold(a.ab, p.stride_b, p.sig.b);
    fold(a.cd, p.stride_c, p.sig.c);
    if (p.sig.variant == gemm_variant::multi_d) fold(a.cd, p.stride_d, p.sig.c);
  }
  return a;
}

feature_row features_of(const gemm_problem& p, const gemm_key& key, double best_estimate_us, alignments alignment,
                        device_facts device) {
  return features_of(p, key, estimate_microseconds(key, p), best_estimate_us, alignment, device);
}

feature_row features_of(const gemm_problem& p, const gemm_key& key, double estimate_us, double best_estimate_us,
                        alignments alignment, device_facts device) {
  const auto& a = key.algo;
  const machine_model machine = machine_model_of(key);
  const kernel_profile prof = profile_of(key, machine);
  const problem_profile pp = profile_of(p);
  const tile_terms terms = terms_of(prof, pp);
  auto ceil_div = [](double x, double y) { return std::ceil(x / y); };
  auto waste = [&](double size, double tile) {
    const double padded = ceil_div(size, tile) * tile;
    return float((padded - size) / padded);
  };
  const float waste_m = waste(double(p.m), a.tile.m), waste_n = waste(double(p.n), a.tile.n);
  const double tiles = ceil_div(double(p.m), a.tile.m) * ceil_div(double(p.n), a.tile.n) * double(p.batch);
  const double slots = double(machine.processors) * std::max(1.0f, prof.rates.fit);
  const double waves = tiles / slots;
  const double tail = waves - std::floor(waves);
  const double elem = std::max(1, bits_of(p.sig.a) / 8);
  const double flops = p.flops();
  const double bytes = double(p.batch) * (double(p.m) * p.k + double(p.k) * p.n + double(p.m) * p.n) * elem;
  const int lay = (p.sig.lay.a == layout::row ? 0 : 4) + (p.sig.lay.b == layout::row ? 0 : 2) +
                  (p.sig.lay.c == layout::row ? 0 : 1);
  feature_row f{};
  std::size_t i = 0;
  f[i++] = float(std::log2(double(p.m)));
  f[i++] = float(std::log2(double(p.n)));
  f[i++] = float(std::log2(double(p.k)));
  f[i++] = float(std::log2(double(p.batch)));
  f[i++] = float(a.tile.m);
  f[i++] = float(a.tile.n);
  f[i++] = float(a.tile.k);
  f[i++] = waste_m;
  f[i++] = waste_n;
  f[i++] = waste(double(p.k), a.tile.k);
  f[i++] = float(std::log2(tiles));
  f[i++] = float(waves);
  f[i++] = float(tail == 0.0 ? 1.0 : tail);
  f[i++] = float(ceil_div(double(p.k), a.tile.k));
  f[i++] = float(std::log2(flops / std::max(bytes, 1.0)));
  f[i++] = float(double(a.tile.m) * a.tile.n / double(a.tile.m + a.tile.n));
  f[i++] = float(alignment.ab);
  f[i++] = float(a.vector_bytes);
  // Trees see the pair above only where both values occur in training; the share generalizes
  // (measured on H100: the 2-byte cp_async kernel runs 3x slower than the 4-byte one where
  // both fit, e.g. BERT's 30522-column output).
  f[i++] = float(a.vector_bytes) / float(std::max(alignment.ab, 1));
  f[i++] = float(alignment.cd);
  f[i++] = float(int(a.pipe));
  f[i++] = float(a.stages);
  f[i++] = float(a.warps.m * a.warps.n);
  f[i++] = float(a.warp_tile.m);
  f[i++] = float(a.warp_tile.n);
  f[i++] = float(a.cluster_m * a.cluster_n);
  f[i++] = float(prof.rates.splits_k ? terms.splits : 1.0);
  f[i++] = prof.rates.persistent ? 1.0f : 0.0f;
  f[i++] = prof.rates.fit;
  f[i++] = float(std::log2(std::max(estimate_us, 1e-3)));
  f[i++] = float(best_estimate_us > 0 ? estimate_us / best_estimate_us : 1.0);
  f[i++] = float(lay);
  f[i++] = float(elem);
  f[i++] = float(int(a.epi));
  f[i++] = a.sched == scheduler::pingpong ? 1.0f : 0.0f;
  f[i++] = float(a.cluster_n);
  f[i++] = float(std::log2(ceil_div(double(p.m), a.tile.m)));
  f[i++] = float(std::log2(ceil_div(double(p.n), a.tile.n)));
  // Trees split one feature at a time: the products that decide how much of the machine's
  // work is wasted are given whole (GPT-2 XL's 1600-wide layers, 2026-11-28).
  const float useful = (1.0f - waste_m) * (1.0f - waste_n);
  const float wave_share = float(waves / std::max(1.0, std::ceil(waves)));
  f[i++] = useful;
  f[i++] = wave_share;
  f[i++] = useful * wave_share;
  // Rows that do not start on a 128-byte line load differently: in the H200 data of 2026-11-28 the
  // 2-CTA multicast kernels are the fastest on 20% of such problems where they may run (1.35x the
  // same tiles alone at K = 1784), on 1.5% of those with aligned rows; the 16-byte alignment class
  // above cannot tell the two apart.
  // (C's rows get no such feature: the choice of path must not depend on C's alignment, which the
  // epilogue takes whatever it is; GemmProperty.EveryRandomProblemIsSelectedForSm90.)
  f[i++] = float(std::min(byte_alignment(p.lda, p.sig.a, 256), byte_alignment(p.ldb, p.sig.b, 256)));
  // Long-K problems on few tiles are bound by what the tiles pull from L2, not by the tensor cores
  // (random shapes, 1272 x 1584 x 25392: 90 tiles of 128x192 1.28x faster than 130 of 128x128).
  const double tile_loads = tiles * double(a.tile.m + a.tile.n) * ceil_div(double(p.k), a.tile.k) * a.tile.k * elem;
  const double operands = double(p.batch) * (double(p.m) + double(p.n)) * double(p.k) * elem;
  f[i++] = float(std::log2(std::max(tile_loads, 1.0)));
  f[i++] = float(tile_loads / std::max(operands, 1.0));
  f[i++] = float(memory_clock_for(device, key.algo.arch));
  return f;
}

}  // namespace kdecl::tuning
