// The split-K plan of the sm_80 backward-weight convolution (conv_bwd_weight_sm80.cuh),
// plain C++ so that the host tests check it (tests/unit/conv_bwd_plan_test.cpp).
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
