// What the stride1_rows kernel (cuda/sm90/conv_fwd_rows_sm90.cuh) computes for a problem, for
// the cost model and the learned model's features: whole output rows of the forward convolution
// it runs (a unit-stride backward-data's: the rows of dx), in strips of the tile's pixels, the
// last strip of a row padded.
#pragma once

#include <cstdint>
#include <optional>

#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels {

struct rows_plan {
  std::int64_t rows = 0;     // output rows: N x H (x D) of the forward convolution
  std::int64_t columns = 0;  // output pixels of a row
  std::int64_t strips = 0;   // tiles of a row: columns / pixels, rounded up
  int pixels = 0;            // of a tile
  double computed_pixels() const { return double(rows) * double(strips) * pixels; }
  double fill() const { return double(columns) / (double(strips) * pixels); }
};

// Empty for a backward-weight problem (the kernel computes forward and backward-data only).
inline std::optional<rows_plan> rows_plan_of(const grouped_conv_problem& p, int pixels) {
  if (p.dir == conv_direction::bwd_weight || pixels <= 0) return std::nullopt;
  const auto fwd = p.output_dims();
  auto out = [&](int slot) { return p.dir == conv_direction::fwd ? fwd[std::size_t(slot)] : p.input_dims[slot]; };
  rows_plan r;
  r.rows = p.n * (p.ndim() == 3 ? out(0) : 1) * out(1);
  r.columns = out(2);
  r.pixels = pixels;
  r.strips = (r.columns + pixels - 1) / pixels;
  return r;
}

}  // namespace kdecl::kernels
