// Halo tiles: how the stride1 specialization's sm_90 forward kernel
// (cuda/sm90/conv_fwd_halo_sm90.cuh) lays a unit-stride convolution over block tiles,
// shared with the dispatcher's cost model and the learned model's features.
//
// The im2col kernels load a tile's input once per filter tap: a 3x3 filter reads each
// input pixel nine times from L2, which bounds 64-channel layers by L2 bandwidth. A halo
// tile is 8 output rows x (tile_m / 8) output columns of one output plane (one image, one
// output depth), its wgmma m64 blocks (8 rows x 8 columns each) side by side. For each
// 64-channel chunk and filter depth, one TMA box brings the tile's input rows and their
// halo, (8 + row reach) x P pixels with P the tile's columns plus the column reach rounded
// up to 8, once for all Y x X taps of that depth: a tap (y, x) of m64 block b is then the
// box seen from pixel (y dh, 8 b + x dw) on, one core matrix (8 pixels) per output row,
// P x 128 bytes apart. (P a multiple of 8 keeps every output row's pixels in the same
// phase of the 128-byte swizzle, whose pattern wgmma takes from the address bits.)
//
// The implicit GEMM's M counts the tiles' pixels (tiles x tile_m); pixels past the
// output's right or bottom edge are computed and not stored (halo_rows::stored).
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"

namespace kdecl::kernels {

inline constexpr int halo_block_rows = 8;       // output rows of a tile (one core matrix each per m64 block)
inline constexpr int halo_block_cols = 8;       // output columns of one m64 block
inline constexpr int halo_max_row_reach = 2;    // (Y - 1) x dilation along H: 3x3 filters
inline constexpr int halo_max_col_reach = 8;    // (X - 1) x dilation along W
inline constexpr int halo_chunk_channels = 64;  // one 128-byte row of 16-bit data per pixel

constexpr int halo_tile_cols(int tile_m) { return tile_m / halo_block_rows; }
// The box's columns for a column reach: the tile's columns and the reach, a multiple of 8.
constexpr int halo_box_cols(int tile_m, int col_reach) { return (halo_tile_cols(tile_m) + col_reach + 7) / 8 * 8; }
constexpr int halo_box_rows(int row_reach) { return halo_block_rows + row_reach; }
// One halo stage of a tile_m tile: the largest box any supported filter needs, 128 bytes a pixel.
constexpr int halo_stage_bytes(int tile_m) {
  return halo_box_rows(halo_max_row_reach) * halo_box_cols(tile_m, halo_max_col_reach) * 128;
}

// The tiles of one problem (normalized, unit strides) for tile_m output pixels per tile.
struct halo_tiling {
  int tile_m = 0, tile_cols = 0;
  int tiles_x = 0, tiles_y = 0, planes = 0;  // per image: tiles along W and H, output depth planes
  std::int64_t tiles = 0;                    // N x planes x tiles_y x tiles_x
  int row_reach = 0, col_reach = 0, depth_reach = 0;
  int box_rows = 0, box_cols = 0;
  std::int64_t rows() const { return tiles * tile_m; }  // the implicit GEMM's M
};

inline halo_tiling halo_tiling_of(const grouped_conv_problem& p, int tile_m) {
  const auto out = p.output_dims();
  halo_tiling t;
  t.tile_m = tile_m;
  t.tile_cols = halo_tile_cols(tile_m);
  t.tiles_x = int((out[2] + t.tile_cols - 1) / t.tile_cols);
  t.tiles_y = int((out[1] + halo_block_rows - 1) / halo_block_rows);
  t.planes = int(out[0]);
  t.tiles = p.n * std::int64_t(t.planes) * t.tiles_y * t.tiles_x;
  t.depth_reach = int((p.filter_dims[0] - 1) * p.dilation_dims[0]);
  t.row_reach = int((p.filter_dims[1] - 1) * p.dilation_dims[1]);
  t.col_reach = int((p.filter_dims[2] - 1) * p.dilation_dims[2]);
  t.box_rows = halo_box_rows(t.row_reach);
  t.box_cols = halo_box_cols(tile_m, t.col_reach);
  return t;
}

// The forward convolution halo tiles compute for `p` (normalized): `p` itself forward, the
// forward equivalent of a stride-1 backward-data (bwd_data_as_forward.hpp); none otherwise.
inline std::optional<grouped_conv_problem> halo_problem_of(const grouped_conv_problem& p) {
  if (p.dir == conv_direction::fwd) return p;
  if (p.dir == conv_direction::bwd_data && !bwd_data_as_forward_reason(p)) return forward_equivalent_of_bwd_data(p);
  return std::nullopt;
}

// Why halo tiles of tile_m pixels cannot compute `p` (normalized, forward), or nothing. TMA's own
// limits (16-byte aligned strides and base) show when the input's map is built.
inline std::optional<std::string> halo_reason(const grouped_conv_problem& p, int tile_m) {
  if (p.ndim() < 2) return std::string("halo tiles are 2-D or 3-D (a 1-D convolution has no rows to tile)");
  for (int s = 0; s < 3; ++s)
    if (p.stride_dims[s] != 1) return std::string("halo tiles need unit strides");
  if (p.c_per_group() % halo_chunk_channels != 0) return std::string("halo tiles need C/G a multiple of 64");
  if (p.g > 1 && p.in_strides.g != p.c_per_group())
    return std::string("halo tiles need the groups' input channels adjacent");
  const halo_tiling t = halo_tiling_of(p, tile_m);
  if (t.row_reach > halo_max_row_reach)
    return "the filter reaches " + std::to_string(t.row_reach + 1) + " input rows ((Y - 1) x dilation + 1); halo tiles load " +
           std::to_string(halo_max_row_reach + 1) + " at most";
  if (t.col_reach > halo_max_col_reach)
    return "the filter reaches " + std::to_string(t.col_reach + 1) +
           " input columns ((X - 1) x dilation + 1); halo tiles load " + std::to_string(halo_max_col_reach + 1) +
           " at most";
  if (t.rows() > std::numeric_limits<int>::max())
    return "halo tiles cover " + std::to_string(t.rows()) + " output pixels: more than 32-bit row indices";
  return std::nullopt;
}

// One tile's rows, as the epilogue stores them (output_rows.cuh): row first_row + l is m64
// block l / 64, output row (l % 64) / 8 and column 8 (l / 64) + l % 8 of the tile, an output
// pixel where that row and column are inside the output. Shifts and masks only: the epilogue
// asks for every row it stores.
struct halo_tile_rows {
  static constexpr bool has_gaps = true;
  int first_row;             // the tile's first row of the implicit GEMM
  int rows_left, cols_left;  // output rows and columns from the tile's first pixel to the output's edge
  std::int64_t base;         // the tile's first pixel's offset
  std::int64_t row, col;     // the output's element strides along H and W

  constexpr int row_in_tile(int local) const { return (local & 63) >> 3; }
  constexpr int col_in_tile(int local) const { return (local >> 6) * halo_block_cols + (local & 7); }
  constexpr bool stored(int m) const {
    const int local = m - first_row;
    return row_in_tile(local) < rows_left && col_in_tile(local) < cols_left;
  }
  constexpr std::int64_t operator()(int m) const {
    const int local = m - first_row;
    return base + row_in_tile(local) * row + col_in_tile(local) * col;
  }
};

// Where the tiles' row m goes (output_rows.cuh): tile m / tile_m, m64 block, output row and
// column in it, or no output (stored() false) past the output's edge; of_tile(first row) is
// the same for one tile, cheaper. constexpr: the kernels call it on the device.
struct halo_rows {
  static constexpr bool has_gaps = true;
  int tile_m, tile_cols, tiles_x, tiles_y, planes;
  int out_h, out_w;
  std::int64_t image, depth, row, col;  // the output's element strides

  struct pixel {
    int n, z, y, x;
  };
  constexpr pixel at(int m) const {
    const int tile = m / tile_m, local = m % tile_m;
    const int block = local / 64, in_block = local % 64;
    const int tx = tile % tiles_x, rest = tile / tiles_x;
    const int ty = rest % tiles_y, plane = rest / tiles_y;
    return {plane / planes, plane % planes, ty * halo_block_rows + in_block / halo_block_cols,
            tx * tile_cols + block * halo_block_cols + in_block % halo_block_cols};
  }
  constexpr bool stored(int m) const {
    const pixel q = at(m);
    return q.y < out_h && q.x < out_w;
  }
  constexpr std::int64_t operator()(int m) const {
    const pixel q = at(m);
    return q.n * image + q.z * depth + q.y * row + q.x * col;
  }
  constexpr halo_tile_rows of_tile(int first_row) const {
    const pixel q = at(first_row);
    return {first_row, out_h - q.y, out_w - q.x, q.n * image + q.z * depth + q.y * row + q.x * col, row, col};
  }
};

inline halo_rows halo_rows_of(const grouped_conv_problem& p, const halo_tiling& t) {
  const auto out = p.output_dims();
  const conv_tensor_strides& s = p.out_strides;
  return {t.tile_m, t.tile_cols, t.tiles_x, t.tiles_y, t.planes, int(out[1]), int(out[2]),
          s.n, s.spatial[0], s.spatial[1], s.spatial[2]};
}

}  // namespace kdecl::kernels
