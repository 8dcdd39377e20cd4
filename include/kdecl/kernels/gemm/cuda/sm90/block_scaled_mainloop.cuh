// The main loop of the block_scaled variant (fp8/bf8 A and B with a float scale per 1 x 128
// block of A and per 128 x 128 block of B, gemm_problem.hpp) on the tma_wgmma consumers.
// Part of gemm_sm90_kernel.cuh, which includes it after consume_k_blocks (whose ring,
// descriptors and wgmma it shares); not a header of its own.
//
// A k-block (tile_k = 128 = the scale block's depth) is one wgmma group into a second set of
// accumulators, `part`, the first instruction starting it from zero. Once the group has
// retired its stage is free, and the consumer adds part x sa(row) x sb to the tile's
// accumulators: each thread's two rows per m64 block (lane / 4 and 8 below it, as the wgmma
// fragment lays them out) take their own A scale, the whole tile one B scale (tile_n is 64
// or 128, inside one 128-column block: sm90_config refuses wider tiles). This is the
// promotion DeepGEMM does: fp32 sums of 128 products, scaled once each, and the scaling runs
// on the CUDA cores while the other consumer warpgroup's wgmma (intrawave: the tile's other
// rows; pingpong: the other tile) keep the tensor cores busy.
//
// The scales are read from global memory (L2: a tile's are a few hundred bytes), issued
// before the stage's wait so that their latency hides under it and the wgmma group.
#pragma once

namespace kdecl::kernels::cuda::sm90 {

// The scales one consumer thread applies for one k-block: per m64 block, its two rows' A
// scales times the tile's B scale; rows past M scale by 0 (they are never stored).
template <class Cfg>
struct k_block_scales {
  static_assert(Cfg::tile_k == scale_block_k && scale_block_n % Cfg::tile_n == 0,
                "block_scaled: one k-block is one scale block, one tile inside one 128-column scale block");
  float upper[Cfg::m_blocks], lower[Cfg::m_blocks];

  // `row0`: this thread's row of m64 block 0 (its warp's 16-row slice, lane / 4).
  __device__ __forceinline__ static k_block_scales load(const gemm_sm90_params& p, const tile_work& w, int row0,
                                                        int kb) {
    k_block_scales s;
    const float* sa = p.scale_a + w.batch * p.scale_stride_a + std::int64_t(kb) * p.scale_ld_a;
    const int n_block = w.tile_n * Cfg::tile_n / scale_block_n;
    const float sb = __ldg(p.scale_b + w.batch * p.scale_stride_b + n_block * p.scale_ld_b + kb);
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) {
      const int r = row0 + 64 * i;
      s.upper[i] = r < p.m ? __ldg(sa + r) * sb : 0.0f;
      s.lower[i] = r + 8 < p.m ? __ldg(sa + r + 8) * sb : 0.0f;
    }
    return s;
  }
};

// consume_k_blocks for the block_scaled variant (see the file comment): the same ring and
// stages; every stage is freed as soon as its group has retired, so none is held at the end
// (returns -1). `row0` as k_block_scales::load.
template <class Cfg>
__device__ __forceinline__ int consume_k_blocks_scaled(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                       std::uint32_t a_ring, std::uint32_t b_ring,
                                                       std::uint64_t* full, std::uint64_t* empty, ring_position& pos,
                                                       const gemm_sm90_params& p, const tile_work& w, int row0,
                                                       int lane, int rank) {
  float part[Cfg::m_blocks][Cfg::acc_regs];
  for (int kb = w.k_block_begin; kb < w.k_block_end; ++kb) {
    const k_block_scales<Cfg> scale = k_block_scales<Cfg>::load(p, w, row0, kb);
    mbarrier_wait(&full[pos.stage], pos.phase);
    // The k-block's first product starts the sums.
    issue_stage_wgmma<Cfg, /*StartFromZero=*/true>(part, a_ring + pos.stage * Cfg::a_stage_bytes,
                                                   b_ring + pos.stage * Cfg::b_stage_bytes);
    wgmma_wait_group<0>();
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(part[i]);
    if (lane == 0) release_slot<Cfg>(empty, pos.stage, rank);
    pos.advance<Cfg::stages>();
    // The fragment's registers 4g, 4g + 1 hold row lane / 4, 4g + 2, 4g + 3 the row 8 below.
#pragma unroll
    for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
      for (int r = 0; r < Cfg::acc_regs; ++r)
        acc[i][r] = fmaf(part[i][r], (r & 2) ? scale.lower[i] : scale.upper[i], acc[i][r]);
  }
  return -1;
}

}  // namespace kdecl::kernels::cuda::sm90
