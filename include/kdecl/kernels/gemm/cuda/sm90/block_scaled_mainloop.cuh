// The main loop of the block_scaled variant (fp8/bf8 A and B with a float scale per 1 x 128
// block of A and per 128 x 128 block of B, gemm_problem.hpp) on the tma_wgmma consumers.
// Part of gemm_sm90_kernel.cuh, which includes it after consume_k_blocks (whose ring,
// descriptors and wgmma it shares); not a header of its own.
//
// A k-block (tile_k = 128 = the scale block's depth) is one wgmma group into a set of
// partial sums, `part`, the first instruction starting it from zero. Once the group has
// retired its stage is free, and the consumer adds part x sa(row) x sb to the tile's
// accumulators: each thread's two rows per m64 block (lane / 4 and 8 below it, as the wgmma
// fragment lays them out) take their own A scale, the whole tile one B scale (tile_n is 64
// or 128, inside one 128-column block: sm90_config refuses wider tiles). This is the
// promotion DeepGEMM does: fp32 sums of 128 products, scaled once each. The scaling runs on
// the CUDA cores while this warpgroup's next k-block (two partial sets alternate) and the
// other consumer's wgmma keep the tensor cores busy.
//
// The scales are read from global memory (L2: a tile's are a few hundred bytes) when their
// k-block's group is issued and used after the next one's is, so that their latency hides
// under the wgmma. Measured on an H100 (docs/perf/h100-2026-12-05-block-scaled-overlap/): the
// two partial sets are 8-20% faster than one (0.65-0.69x cuBLASLt against 0.57-0.65x); the
// 128 x 128 tile is then bound by operand traffic. 2x1 / 1x2 multicast clusters were tried:
// with two sets the producer's 24 registers spilled (half speed), with one set they ran about
// as fast as this tile; neither is built.
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

// One k-block's wgmma group in flight into a partial-sum set: the set, the scales that
// promote it and the ring stage it reads (freed once the group has retired).
template <class Cfg>
struct scaled_group {
  float part[Cfg::m_blocks][Cfg::acc_regs];
  k_block_scales<Cfg> scale;
  int stage;
};

// Waits for the next stage and issues its k-block's wgmma group into `g`, the first
// instruction starting the sums from zero.
template <class Cfg>
__device__ __forceinline__ void issue_scaled_group(scaled_group<Cfg>& g, std::uint32_t a_ring, std::uint32_t b_ring,
                                                   std::uint64_t* full, ring_position& pos) {
  mbarrier_wait(&full[pos.stage], pos.phase);
  issue_stage_wgmma<Cfg, /*StartFromZero=*/true>(g.part, a_ring + pos.stage * Cfg::a_stage_bytes,
                                                 b_ring + pos.stage * Cfg::b_stage_bytes);
  g.stage = pos.stage;
  pos.advance<Cfg::stages>();
}

// After `g`'s group has retired: free its stage and add part x scale into the tile's sums.
// The fragment's registers 4g, 4g + 1 hold row lane / 4, 4g + 2, 4g + 3 the row 8 below.
template <class Cfg>
__device__ __forceinline__ void promote_scaled_group(float (&acc)[Cfg::m_blocks][Cfg::acc_regs], scaled_group<Cfg>& g,
                                                     std::uint64_t* empty, int lane, int rank) {
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i) fence_accumulators(g.part[i]);
  if (lane == 0) release_slot<Cfg>(empty, g.stage, rank);
#pragma unroll
  for (int i = 0; i < Cfg::m_blocks; ++i)
#pragma unroll
    for (int r = 0; r < Cfg::acc_regs; ++r)
      acc[i][r] = fmaf(g.part[i][r], (r & 2) ? g.scale.lower[i] : g.scale.upper[i], acc[i][r]);
}

// consume_k_blocks for the block_scaled variant (see the file comment): the same ring and
// stages. Two partial-sum sets alternate so that k-block kb + 1's group is on the tensor
// cores while kb's is promoted (one wgmma_wait_group<1> per k-block, as the standard loop);
// each k-block's scales are loaded when its group is issued and used one k-block later,
// which hides their global-memory latency. Every stage is freed once its group has
// retired, so none is held at the end (returns -1). `row0` as k_block_scales::load.
template <class Cfg>
__device__ __forceinline__ int consume_k_blocks_scaled(float (&acc)[Cfg::m_blocks][Cfg::acc_regs],
                                                       std::uint32_t a_ring, std::uint32_t b_ring,
                                                       std::uint64_t* full, std::uint64_t* empty, ring_position& pos,
                                                       const gemm_sm90_params& p, const tile_work& w, int row0,
                                                       int lane, int rank) {
  const int end = w.k_block_end;
  int kb = w.k_block_begin;
  if (kb >= end) return -1;
  // Statically named sets (the loop is unrolled by two by hand): registers, never local
  // memory. The loop body has no branch around a wait, so that ptxas can follow which set's
  // group is in flight (otherwise it serialises the wgmma).
  scaled_group<Cfg> even, odd;
  const auto issue = [&](scaled_group<Cfg>& g, int k_block) {
    g.scale = k_block_scales<Cfg>::load(p, w, row0, k_block);
    issue_scaled_group<Cfg>(g, a_ring, b_ring, full, pos);
  };
  issue(even, kb);
  // `even` holds k-block kb at the top of each pass.
  for (; kb + 2 < end; kb += 2) {
    issue(odd, kb + 1);
    wgmma_wait_group<1>();
    promote_scaled_group<Cfg>(acc, even, empty, lane, rank);
    issue(even, kb + 2);
    wgmma_wait_group<1>();
    promote_scaled_group<Cfg>(acc, odd, empty, lane, rank);
  }
  if (kb + 1 < end) {
    issue(odd, kb + 1);
    wgmma_wait_group<1>();
    promote_scaled_group<Cfg>(acc, even, empty, lane, rank);
    wgmma_wait_group<0>();
    promote_scaled_group<Cfg>(acc, odd, empty, lane, rank);
  } else {
    wgmma_wait_group<0>();
    promote_scaled_group<Cfg>(acc, even, empty, lane, rank);
  }
  return -1;
}

}  // namespace kdecl::kernels::cuda::sm90
