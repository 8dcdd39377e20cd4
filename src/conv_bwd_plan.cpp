// The split-K plans of the backward-weight convolutions (kernels/conv/cuda/sm80/conv_bwd_plan.hpp):
// compiled once here, so that a change to a plan rebuilds this file, not every kernel set.
#include "kdecl/kernels/conv/cuda/sm80/conv_bwd_plan.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace kdecl::kernels {

int bwd_weight_gpu_splits(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k, int sms) {
  const auto e = p.implicit_gemm();
  const std::int64_t tiles = p.g * ((e.m + tile_m - 1) / tile_m) * ((e.n + tile_n - 1) / tile_n);
  const std::int64_t k_tiles = (e.k + tile_k - 1) / tile_k;
  if (tiles == 0 || k_tiles == 0) return 1;
  std::int64_t s = 2 * std::int64_t(std::max(sms, 1)) / tiles;  // 1 once the tiles alone fill two waves
  s = std::min<std::int64_t>(s, e.k / 512);
  const std::int64_t partial_bytes = p.g * e.m * e.n * std::int64_t(sizeof(float));
  s = std::min<std::int64_t>(s, (std::int64_t{256} << 20) / std::max<std::int64_t>(partial_bytes, 1));
  s = std::clamp<std::int64_t>(s, 1, 1024);
  const std::int64_t per = (k_tiles + s - 1) / s;  // whole k tiles per range
  return int((k_tiles + per - 1) / per);
}

}  // namespace kdecl::kernels

namespace kdecl::kernels::cuda::sm90 {

bwd_weight_split bwd_weight_sm90_split(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k, int sms,
                                       const int* capacity, bool cluster_ok) {
  // Fitted to every split forced on eight layers (KDECL_CONV_BWD_WEIGHT_SPLIT; H200, 2026-11-28,
  // docs/perf/h200-2026-11-28-conv-bwd-weight-split/): one SM's rate on this kernel, lower for
  // tiles of 128 x 128 or less (both operands streamed from L2 per k-block: 64 FLOP per byte
  // against 85 for 128 x 256); a unit's fixed cost (pipeline fill and epilogue) of about 3 us on
  // the persistent grid; a cluster unit's about 5 us plus 0.8 us per block (one launch per unit,
  // the cluster barriers, the reduction through distributed shared memory).
  const double sm_flops = std::int64_t(tile_m) * tile_n > 128 * 128 ? 4.5e12 : 3.0e12;
  constexpr double bandwidth = 2.5e12;  // bytes/s of the partials' writes and reads
  // The partials' reduction kernel: its launch and tail (a small layer: 13.6 us on 6 clusters, 16.9 on 6 ranges).
  constexpr double launch_us = 7.0;
  constexpr double unit_us = 3.0;
  constexpr double cluster_unit_us = 5.0, cluster_block_us = 0.8;
  constexpr int min_k_tiles = 8;
  constexpr double max_partial_bytes = double(std::int64_t{256} << 20);
  const auto e = p.implicit_gemm();
  const std::int64_t tiles = p.g * ((e.m + tile_m - 1) / tile_m) * ((e.n + tile_n - 1) / tile_n);
  const std::int64_t k_tiles = (e.k + tile_k - 1) / tile_k;
  sms = std::max(sms, 1);
  if (tiles == 0 || k_tiles == 0) return {};
  const double tile_us = 2.0 * tile_m * tile_n * double(e.k) / sm_flops * 1e6;
  const double partial_bytes = double(p.g) * double(e.m) * double(e.n) * 4.0;
  const auto time_of = [&](int c, std::int64_t w) {
    const std::int64_t fit = c == 1 ? sms : capacity != nullptr ? capacity[c] : sms / c * c;
    const std::int64_t units = tiles * c * w;
    const double waves = double((units + fit - 1) / fit);
    const double fixed_us = c == 1 ? unit_us : cluster_unit_us + cluster_block_us * c;
    return waves * (tile_us / double(c * w) + fixed_us) +
           (w > 1 ? 2.0 * partial_bytes * double(w) / bandwidth * 1e6 + launch_us : 0.0);
  };
  bwd_weight_split best;
  double best_us = time_of(1, 1);
  for (int c = 1; c <= (cluster_ok ? 8 : 1); ++c) {
    if (c > 1 && capacity != nullptr && capacity[c] < c) continue;
    for (std::int64_t w = 1; w <= 1024; ++w) {
      if (k_tiles / (c * w) < min_k_tiles && !(c == 1 && w == 1)) break;
      if (w > 1 && partial_bytes * double(w) > max_partial_bytes) break;
      if (tiles * c * w > (std::int64_t{1} << 30)) break;
      const double us = time_of(c, w);
      if (us < 0.97 * best_us) {
        best = {c, int(w)};
        best_us = us;
      }
    }
  }
  return best;
}

std::optional<bwd_weight_split> bwd_weight_split_override(const char* text, const grouped_conv_problem& p, int tile_k,
                                                          bool cluster_ok) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  const char* end = text + std::strlen(text);
  bwd_weight_split s;
  auto [comma, ec] = std::from_chars(text, end, s.cluster);
  if (ec != std::errc{} || comma == end || *comma != ',') return std::nullopt;
  auto [last, ec2] = std::from_chars(comma + 1, end, s.ranges);
  if (ec2 != std::errc{} || last != end) return std::nullopt;
  if (s.cluster < 1 || s.cluster > 8 || (s.cluster > 1 && !cluster_ok) || s.ranges < 1 || s.ranges > 1024)
    return std::nullopt;
  const std::int64_t k_tiles = (p.implicit_gemm().k + tile_k - 1) / tile_k;
  if (k_tiles < std::int64_t(s.cluster) * s.ranges) return std::nullopt;
  return s;
}

}  // namespace kdecl::kernels::cuda::sm90
