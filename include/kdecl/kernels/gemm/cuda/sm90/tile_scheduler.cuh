// Persistent-grid work order. A unit of work is one (batch, tile_m, tile_n, k-split)
// quadruple; block b takes units b, b + gridDim.x, ...  Output tiles are visited in
// groups of `group_m` tile rows, column by column inside a group, so the blocks
// running at once share A rows and B columns in L2. The k-splits of one tile are
// adjacent units.
#pragma once

namespace kdecl::kernels::cuda::sm90 {

struct tile_work {
  int batch, tile_m, tile_n;
  int tile;                    // linear output-tile index (batch included)
  int split;                   // which K range of the tile
  int k_block_begin, k_block_end;
};

struct tile_scheduler {
  int tiles_m, tiles_n, batch;
  int group_m;   // tile rows per raster group (>= 1)
  int splits;    // K ranges per tile (1 = no split-K)
  int k_blocks;  // ceil(K / tile_k)

  __host__ __device__ int tiles() const { return batch * tiles_m * tiles_n; }
  __host__ __device__ int units() const { return tiles() * splits; }

  __device__ tile_work at(int unit) const {
    tile_work w;
    w.tile = unit / splits;
    w.split = unit - w.tile * splits;
    const int per_batch = tiles_m * tiles_n;
    w.batch = w.tile / per_batch;
    const int t = w.tile - w.batch * per_batch;
    const int per_group = group_m * tiles_n;
    const int group = t / per_group;
    const int first_m = group * group_m;
    const int rows_here = min(tiles_m - first_m, group_m);
    const int in_group = t - group * per_group;
    w.tile_m = first_m + in_group % rows_here;
    w.tile_n = in_group / rows_here;
    // Even split of the k-blocks; the host keeps splits <= k_blocks so none is empty.
    w.k_block_begin = static_cast<int>(static_cast<long long>(k_blocks) * w.split / splits);
    w.k_block_end = static_cast<int>(static_cast<long long>(k_blocks) * (w.split + 1) / splits);
    return w;
  }
};

}  // namespace kdecl::kernels::cuda::sm90
