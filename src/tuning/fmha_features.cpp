#include "kdecl/tuning/fmha_features.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "kdecl/arch/arch.hpp"

namespace kdecl::tuning {

const std::array<std::string_view, fmha_feature_count>& fmha_feature_names() {
  static constexpr std::array<std::string_view, fmha_feature_count> names{
      "log2_batch", "log2_seqlen_q", "log2_seqlen_kv", "log2_total_q", "log2_total_kv",
      "log2_heads_q", "log2_head_ratio",               // query heads per K/V head (GQA)
      "hdim_q", "hdim_v", "padded_hdim_q", "padded_hdim_v",
      "hdim_waste",                                    // share of the padded head-dim work that is padding
      "mask", "log2_window",                           // window: left + right + 1 (generic mask), else -1
      "attended_share",                                // attended (query, key) pairs / all pairs
      "bias", "soft_cap", "sinks", "lse", "group_mode",
      "seqlen_spread",                                 // longest / mean query length (group mode; 1 otherwise)
      "element_bytes",
      "pipeline", "tile_m0", "tile_n0", "tile_k0", "warps", "stages",
      "log2_q_tiles", "waves", "tail",                 // query tiles over the SMs; last wave's fill
      "kv_iterations",                                 // ceil(longest Skv / n0)
      "q_waste",                                       // share of the query tiles' rows that is padding
      "log2_estimate_us", "estimate_ratio",
      "log2_flops"};
  return names;
}

fmha_feature_row fmha_features_of(const fmha_problem& p, const fmha_key& key, double estimate_us,
                                  double best_estimate_us) {
  const auto& a = key.algo;
  const bool host = a.arch == arch_id::host;
  const double processors =
      host ? double(std::max(1u, std::thread::hardware_concurrency()))
           : double(arch::spec_of(a.arch).sm_count);
  const double m0 = std::max(1, a.tile.m0), n0 = std::max(1, a.tile.n0);
  const double dq = double(host ? p.hdim_q : std::max<std::int64_t>(p.hdim_q, a.tile.k0max));
  const double dv = double(host ? p.hdim_v : std::max<std::int64_t>(p.hdim_v, a.tile.n1));
  double q_tiles = 0, rows = 0, padded_rows = 0, pairs = 0, all_pairs = 0;
  for (std::int64_t b = 0; b < p.batch; ++b) {
    const std::int64_t sq = p.seqlen_q_of(b), skv = p.seqlen_kv_of(b);
    const double tiles = std::ceil(double(sq) / m0);
    q_tiles += tiles;
    rows += double(sq);
    padded_rows += tiles * m0;
    pairs += double(p.attended_pairs(b));
    all_pairs += double(sq) * double(skv);
  }
  q_tiles *= double(p.heads_q);
  const double waves = q_tiles / processors;
  const double tail = waves - std::floor(waves);
  const double mean_q = double(p.total_q()) / double(std::max<std::int64_t>(1, p.batch));
  const auto log2_or = [](double v) { return float(std::log2(std::max(v, 1.0))); };

  fmha_feature_row f{};
  std::size_t i = 0;
  f[i++] = log2_or(double(p.batch));
  f[i++] = log2_or(double(p.seqlen_q));
  f[i++] = log2_or(double(p.seqlen_kv));
  f[i++] = log2_or(double(p.total_q()));
  f[i++] = log2_or(double(p.total_kv()));
  f[i++] = log2_or(double(p.heads_q));
  f[i++] = log2_or(double(p.heads_q / std::max<std::int64_t>(1, p.heads_kv)));
  f[i++] = float(p.hdim_q);
  f[i++] = float(p.hdim_v);
  f[i++] = float(dq);
  f[i++] = float(dv);
  f[i++] = float(1.0 - double(p.hdim_q + p.hdim_v) / (dq + dv));
  f[i++] = float(int(p.mask));
  f[i++] = p.mask == fmha_mask::generic && p.window_left >= 0 && p.window_right >= 0
               ? log2_or(double(p.window_left + p.window_right + 1))
               : -1.0f;
  f[i++] = float(all_pairs > 0 ? pairs / all_pairs : 1.0);
  f[i++] = float(int(p.bias));
  f[i++] = p.soft_cap > 0.0f ? 1.0f : 0.0f;
  f[i++] = p.sinks ? 1.0f : 0.0f;
  f[i++] = p.lse ? 1.0f : 0.0f;
  f[i++] = p.group_mode() ? 1.0f : 0.0f;
  f[i++] = float(p.group_mode() ? double(p.seqlen_q) / std::max(mean_q, 1.0) : 1.0);
  f[i++] = float(std::max(1, bits_of(p.qkv) / 8));
  f[i++] = float(int(a.pipe));
  f[i++] = float(a.tile.m0);
  f[i++] = float(a.tile.n0);
  f[i++] = float(a.tile.k0);
  f[i++] = float(a.warps0.m * a.warps0.n * a.warps0.k);
  f[i++] = float(a.stages);
  f[i++] = log2_or(q_tiles);
  f[i++] = float(waves);
  f[i++] = float(tail == 0.0 ? 1.0 : tail);
  f[i++] = float(std::ceil(double(p.seqlen_kv) / n0));
  f[i++] = float(padded_rows > 0 ? 1.0 - rows / padded_rows : 0.0);
  f[i++] = float(std::log2(std::max(estimate_us, 1e-3)));
  f[i++] = float(best_estimate_us > 0 ? estimate_us / best_estimate_us : 1.0);
  f[i++] = log2_or(p.flops());
  return f;
}

}  // namespace kdecl::tuning
