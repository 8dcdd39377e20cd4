// The block_scaled variant (fp8/bf8 A and B, a float scale per 1 x 128 block of A and per
// 128 x 128 block of B: gemm_problem.hpp) on the cp_async kernel. It serves the block-scaled
// problems the TMA kernels cannot load (rows that are not 16-byte multiples, misaligned bases):
// its loads take any alignment down to one byte.
//
// A scale block is 128 deep and the kernel's k tiles 32 or 64: the mma instructions add a
// block's k tiles up in the warp's accumulators as for any GEMM; after the block's last tile
// the sums are scaled, each row by its A scale times the tile's B scale (tile_n divides 128,
// so one B block covers the tile), added into a second set of registers and restarted from
// zero. The scales of a block are read from global memory (L2) before its first tile, their
// latency hidden under that tile's mma. For keys of every other variant this is empty.
#pragma once

#include <cstdint>

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::kernels::cuda::sm80 {

// Where the scales lie: sa(i, kb) at a[batch * stride_a + kb * ld_a + i], sb(nb, kb) at
// b[batch * stride_b + nb * ld_b + kb] (block_scale_layout, normalized).
struct block_scale_params {
  const float* a = nullptr;
  const float* b = nullptr;
  std::int64_t ld_a = 0, ld_b = 0, stride_a = 0, stride_b = 0;
};

template <class Cfg, class Warp, bool Enabled = Cfg::block_scaled>
class scale_blocks {  // the standard, multi_d and preshuffle variants: nothing to do
 public:
  __device__ scale_blocks(const block_scale_params&, std::int64_t, int, int, int) {}
  __device__ void begin_tile(int, const Warp&) {}
  __device__ void end_tile(int, int, Warp&) {}
  __device__ void finish(Warp&) {}
};

template <class Cfg, class Warp>
class scale_blocks<Cfg, Warp, true> {
  static_assert(scale_block_k % Cfg::tile_k == 0 && scale_block_n % Cfg::tile_n == 0,
                "block_scaled: k tiles inside one scale block, the block tile inside one 128-column B block");
  static constexpr int tiles_per_block = scale_block_k / Cfg::tile_k;

 public:
  // m0, n0: the block tile's first row and column; m: the problem's rows (rows past it scale by 0).
  __device__ scale_blocks(const block_scale_params& s, std::int64_t batch, int m0, int n0, int m)
      : sa_(s.a + batch * s.stride_a),
        sb_(s.b + batch * s.stride_b + std::int64_t(n0 / scale_block_n) * s.ld_b),
        ld_a_(s.ld_a),
        m0_(m0),
        m_(m) {
#pragma unroll
    for (int mi = 0; mi < Warp::mi_count; ++mi)
#pragma unroll
      for (int ni = 0; ni < Warp::ni_count; ++ni)
#pragma unroll
        for (int r = 0; r < 4; ++r) total_[mi][ni][r] = 0.0f;
  }

  // Before k tile kt: at a scale block's first tile, read that block's factors.
  __device__ void begin_tile(int kt, const Warp& w) {
    if (kt % tiles_per_block != 0) return;
    const int kb = kt / tiles_per_block;
    const float sb = __ldg(sb_ + kb);
    const float* sa = sa_ + std::int64_t(kb) * ld_a_;
#pragma unroll
    for (int mi = 0; mi < Warp::mi_count; ++mi)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int row = m0_ + w.slot_row(mi, h);
        factor_[mi][h] = row < m_ ? __ldg(sa + row) * sb : 0.0f;
      }
  }
  // After k tile kt of k_tiles: at a scale block's last tile (or the problem's), scale its sums out.
  __device__ void end_tile(int kt, int k_tiles, Warp& w) {
    if ((kt + 1) % tiles_per_block == 0 || kt + 1 == k_tiles) w.move_scaled_into(total_, factor_);
  }
  // After the main loop: the scaled total becomes the accumulators the epilogue reads.
  __device__ void finish(Warp& w) { w.take_accumulators(total_); }

 private:
  const float* sa_;
  const float* sb_;
  std::int64_t ld_a_;
  int m0_, m_;
  typename Warp::row_factors factor_;
  typename Warp::accumulators total_;
};

}  // namespace kdecl::kernels::cuda::sm80
