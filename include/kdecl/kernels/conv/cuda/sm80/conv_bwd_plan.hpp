// The split-K plans of the sm_80 and sm_90 backward-weight convolutions
// (conv_bwd_weight_sm80.cuh, sm90/conv_bwd_weight_sm90.cuh), plain C++ so that the
// host tests and the cost model use them (tests/unit/conv_bwd_plan_test.cpp).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels::cuda::sm80 {

// Split-K ranges of a bwd_weight on `sms` multiprocessors: as many blocks as two
// waves hold (none when the output tiles alone fill them: the partials would only
// add traffic), each range at least 512 deep (16 k tiles of 32: the partials'
// traffic stays small against the products), the partials at most 256 MiB; never
// an empty range.
inline int bwd_weight_gpu_splits(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k, int sms) {
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

}  // namespace kdecl::kernels::cuda::sm80

namespace kdecl::kernels::cuda::sm90 {

// The depth split of the sm_90 backward-weight (conv_bwd_weight_sm90.cuh): `cluster`
// ranges per tile reduced through distributed shared memory by a cluster of that
// many blocks (split_k.cuh), times `ranges` ranges whose fp32 partials go through
// the workspace and a second kernel (split_partials_reduce.cuh).
struct bwd_weight_split {
  int cluster = 1, ranges = 1;
  int total() const { return cluster * ranges; }
  bool operator==(const bwd_weight_split&) const = default;
};

// The split of least estimated time, clusters and ranges tried in increasing order, a later
// one taken only where it is 3% faster (so fewer ranges win ties): waves of units
// on the device (a cluster launch runs one unit per block, the persistent grid several)
// times one unit's depth, plus the partials' traffic and the second launch. Every range is
// at least 8 k tiles deep; the partials take at most 256 MiB. capacity[c]: blocks of
// clusters of c resident at once (c = 2..8; 0 where none fit), or null for sms rounded
// down to whole clusters; `cluster_ok`: the kernel can reduce in a cluster.
inline bwd_weight_split bwd_weight_sm90_split(const grouped_conv_problem& p, int tile_m, int tile_n, int tile_k,
                                              int sms, const int* capacity, bool cluster_ok) {
  constexpr double sm_flops = 5.0e12;   // one H100 SM's 16-bit wgmma rate, about 70% of its peak
  constexpr double bandwidth = 2.5e12;  // bytes/s of the partials' writes and reads (an H100's HBM3)
  constexpr double launch_us = 3.0;     // the reduction kernel's launch and tail
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
    return waves * tile_us / double(c * w) + (w > 1 ? 2.0 * partial_bytes * double(w) / bandwidth * 1e6 + launch_us : 0.0);
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

}  // namespace kdecl::kernels::cuda::sm90
