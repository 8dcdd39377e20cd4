// The host's view of halo tiles (kernels/conv/halo_tiles.hpp) for a problem: whether halo tiles
// of tile_m pixels compute it, and with what tiling. One answer for the cost model
// (src/conv_heuristic.cpp) and the learned model's features (src/tuning/conv_features.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/halo_tiles.hpp"

namespace kdecl::kernels {

struct halo_plan {
  halo_tiling tiling;           // of the forward convolution the tiles compute
  std::int64_t output_pixels;   // that convolution's: N x output pixels
  std::int64_t taps_per_plane;  // its filter's taps in one depth plane (Y x X)
};

// The halo tiles of tile_m pixels that compute `p` (normalized): `p` forward, or a stride-1
// backward-data through its forward equivalent (halo_problem_of); none where they cannot
// (halo_reason).
inline std::optional<halo_plan> halo_plan_of(const grouped_conv_problem& p, int tile_m) {
  const auto f = halo_problem_of(p);
  if (!f || halo_reason(*f, tile_m)) return std::nullopt;
  return halo_plan{halo_tiling_of(*f, tile_m), f->n * f->output_pixels(), f->filter_dims[1] * f->filter_dims[2]};
}

}  // namespace kdecl::kernels
