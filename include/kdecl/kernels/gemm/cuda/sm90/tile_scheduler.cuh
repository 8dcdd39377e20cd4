// Persistent-grid work order. A unit of work is one (batch, tile_m, tile_n, k-split)
// quadruple; block b takes units b, b + gridDim.x, ... (a multicast cluster c of two blocks:
// units c, c + clusters, ...)  Output tiles are visited in
// groups of `group_m` tile rows, column by column inside a group, so the blocks
// running at once share A rows and B columns in L2. The k-splits of one tile are
// adjacent units.
//
// Split tail (tail_tiles > 0; the GEMM's cooperative kernels, tail_split.cuh): the last
// tail_tiles tiles of that order, the partial last wave, are each cut into tail_splits even
// K ranges. Block b first takes whole tiles b, b + workers, ... of the others, then, if
// b < tail_tiles * tail_splits, K range b % tail_splits of tail tile b / tail_splits: the
// ranges of one tile run at once on adjacent blocks, and every tile's range j starts at the
// same time at the same K, as whole tiles do, so tiles that share A rows or B columns still
// read them from L2 together.
#pragma once

#include "kdecl/kernels/cuda/fast_divmod.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct tile_work {
  int batch, tile_m, tile_n;
  int tile;                    // linear output-tile index (batch included)
  int split;                   // which K range of the tile
  int k_block_begin, k_block_end;
  bool valid;                  // false: a multicast cluster's block past the last tile row or column
  int order;                   // position in the raster order
};

// Multicast clusters (cluster_m or cluster_n = 2): a unit is a pair of neighbouring tiles
// along M (or N), one per block of the cluster; the pair's block `rank` takes the tile
// rank places on. Where the tile count is odd, the last pair's second tile lies outside C:
// that block still loads its half of the shared operand for the other and stores nothing.
struct tile_scheduler {
  int tiles_m, tiles_n, batch;
  int group_m;   // tile rows per raster group (>= 1), in units of cluster_m tiles
  int splits;    // K ranges per tile (1 = no split-K)
  int k_blocks;  // ceil(K / tile_k)
  int cluster_m = 1, cluster_n = 1;
  int tail_tiles = 0;   // split tail: the last tiles, cut in K (0: none)
  int tail_splits = 1;  // split tail: K ranges per tail tile
  int workers = 0;      // split tail: blocks of the grid

  __host__ __device__ int tiles() const { return batch * tiles_m * tiles_n; }
  __host__ __device__ int pairs_m() const { return (tiles_m + cluster_m - 1) / cluster_m; }
  __host__ __device__ int pairs_n() const { return (tiles_n + cluster_n - 1) / cluster_n; }
  __host__ __device__ int units() const { return batch * pairs_m() * pairs_n() * splits; }

  // The tile at position `cell` of the raster order (a pair of tiles for a multicast
  // cluster, of which block `rank` takes its own); k range and split left unset.
  __host__ __device__ tile_work tile_in_order(int cell, int rank = 0) const {
    tile_work w;
    w.order = cell;
    const int rows = pairs_m(), cols = pairs_n();
    const int per_batch = rows * cols;
    w.batch = cell / per_batch;
    const int t = cell - w.batch * per_batch;
    const int per_group = group_m * cols;
    const int group = t / per_group;
    const int first_m = group * group_m;
    const int rows_here = (rows - first_m) < group_m ? rows - first_m : group_m;
    const int in_group = t - group * per_group;
    w.tile_m = (first_m + in_group % rows_here) * cluster_m + (cluster_m > 1 ? rank : 0);
    w.tile_n = (in_group / rows_here) * cluster_n + (cluster_n > 1 ? rank : 0);
    w.valid = w.tile_m < tiles_m && w.tile_n < tiles_n;
    w.tile = (w.batch * tiles_m + w.tile_m) * tiles_n + w.tile_n;
    return w;
  }

  __host__ __device__ tile_work at(int unit, int rank = 0) const {
    const int cell = unit / splits;  // (batch, pair row, pair column)
    tile_work w = tile_in_order(cell, rank);
    w.split = unit - cell * splits;
    // Even split of the k-blocks; the host keeps splits <= k_blocks so none is empty.
    w.k_block_begin = static_cast<int>(static_cast<long long>(k_blocks) * w.split / splits);
    w.k_block_end = static_cast<int>(static_cast<long long>(k_blocks) * (w.split + 1) / splits);
    return w;
  }

  // ---- the work of one block (a multicast cluster's pair), in the order it runs it
  // Units of cluster c of `clusters` (the grid's blocks without a multicast cluster).
  __host__ __device__ int units_for(int c, int clusters) const {
    const int whole = units() - tail_tiles;
    const int own = whole > c ? (whole - c + clusters - 1) / clusters : 0;
    return own + (c < tail_tiles * tail_splits ? 1 : 0);
  }
  // Its i-th unit (0 <= i < units_for(c, clusters)).
  __host__ __device__ tile_work unit_for(int c, int clusters, int i, int rank = 0) const {
    const int whole = units() - tail_tiles;
    const int own = whole > c ? (whole - c + clusters - 1) / clusters : 0;
    if (i < own) return at(c + i * clusters, rank);
    tile_work w = tile_in_order(whole + c / tail_splits, rank);  // the split tail's unit
    w.split = c % tail_splits;
    w.k_block_begin = static_cast<int>(static_cast<long long>(k_blocks) * w.split / tail_splits);
    w.k_block_end = static_cast<int>(static_cast<long long>(k_blocks) * (w.split + 1) / tail_splits);
    return w;
  }
  // A tail tile's ranges 1.. run on the blocks right after the block of its range 0.
  __host__ __device__ bool in_tail(const tile_work& w) const { return w.order >= units() - tail_tiles; }
};

// The same walk for one launch's grid of `clusters`, every division by a launch constant done by
// multiply-high (fast_divmod.cuh): what a block computes before its first copy. tile_scheduler's
// units_for/unit_for took a dozen run-time divisions, two of them 64-bit: 1.3 us of the producer's
// thread before its first TMA load, on every launch (sm90_probe timeline). Built on the host at
// launch; gives tile_scheduler's results exactly (tests/gpu/gemm_sm90_test.cu compares them).
struct fast_tile_scheduler {
  tile_scheduler s;
  int whole;       // units before the split tail
  int tail_units;  // tail_tiles * tail_splits
  int rows, cols;  // pairs_m(), pairs_n()
  int last_group_first_m;
  fast_divmod clusters, splits, per_batch, per_group, group_rows, last_group_rows, tail_splits;

  fast_tile_scheduler() = default;
  __host__ __device__ fast_tile_scheduler(const tile_scheduler& sched, int grid_clusters) : s(sched) {
    whole = s.units() - s.tail_tiles;
    tail_units = s.tail_tiles * s.tail_splits;
    rows = s.pairs_m();
    cols = s.pairs_n();
    const int group_m = s.group_m < 1 ? 1 : s.group_m;
    const int groups = (rows + group_m - 1) / group_m;
    last_group_first_m = (groups > 0 ? groups - 1 : 0) * group_m;
    clusters = fast_divmod(grid_clusters);
    splits = fast_divmod(s.splits);
    per_batch = fast_divmod(rows * cols);
    per_group = fast_divmod(group_m * cols);
    group_rows = fast_divmod(group_m);
    last_group_rows = fast_divmod(rows - last_group_first_m);
    tail_splits = fast_divmod(s.tail_splits);
  }

  // tile_scheduler::units_for(c, clusters).
  __host__ __device__ int units_for(int c) const {
    const int own = whole > c ? clusters.div(whole - c + clusters.divisor() - 1) : 0;
    return own + (c < tail_units ? 1 : 0);
  }

  // tile_scheduler::unit_for(c, clusters, i, rank).
  __host__ __device__ tile_work unit_for(int c, int i, int rank = 0) const {
    const int own = whole > c ? clusters.div(whole - c + clusters.divisor() - 1) : 0;
    if (i < own) {
      const int unit = c + i * clusters.divisor();
      const int cell = splits.div(unit);
      tile_work w = tile_in_order(cell, rank);
      w.split = unit - cell * splits.divisor();
      set_k_range(w, splits);
      return w;
    }
    const int tail_tile = tail_splits.div(c);
    tile_work w = tile_in_order(whole + tail_tile, rank);
    w.split = c - tail_tile * tail_splits.divisor();
    set_k_range(w, tail_splits);
    return w;
  }

 private:
  // K range `w.split` of `parts` even ranges: floor(k_blocks * split / parts), as
  // tile_scheduler, written as q * split + (r * split) / parts (k_blocks = q * parts + r).
  __host__ __device__ void set_k_range(tile_work& w, const fast_divmod& parts) const {
    const int q = parts.div(s.k_blocks), r = s.k_blocks - q * parts.divisor();
    w.k_block_begin = q * w.split + parts.div(r * w.split);
    w.k_block_end = q * (w.split + 1) + parts.div(r * (w.split + 1));
  }

  __host__ __device__ tile_work tile_in_order(int cell, int rank) const {
    tile_work w;
    w.order = cell;
    w.batch = per_batch.div(cell);
    const int t = cell - w.batch * per_batch.divisor();
    const int group = per_group.div(t);
    const int first_m = group * group_rows.divisor();
    const int in_group = t - group * per_group.divisor();
    const fast_divmod& here = first_m < last_group_first_m ? group_rows : last_group_rows;
    const int column = here.div(in_group);
    w.tile_m = (first_m + in_group - column * here.divisor()) * s.cluster_m + (s.cluster_m > 1 ? rank : 0);
    w.tile_n = column * s.cluster_n + (s.cluster_n > 1 ? rank : 0);
    w.valid = w.tile_m < s.tiles_m && w.tile_n < s.tiles_n;
    w.tile = (w.batch * s.tiles_m + w.tile_m) * s.tiles_n + w.tile_n;
    return w;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
