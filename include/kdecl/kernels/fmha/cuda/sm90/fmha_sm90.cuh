// The tma_wgmma_ws attention forward (FlashAttention-3 style) for sm_90a.
//
// Work comes in tiles of (128 query rows, query head, sequence). The grid is
// persistent: one block per SM takes a tile of every round of gridDim.x tiles, so
// that the next tile's Q and K/V loads run under this tile's last GEMMs and
// epilogue. Unmasked batch problems have equal tiles and row blocks vary fastest
// (the blocks running together share the K/V of few heads in L2); under a mask,
// and in group mode (varlen), the row blocks that see the most keys (or exist in
// the fewest sequences) come first and the rounds alternate direction (block c
// takes the c-th tile of even rounds and the c-th from the end of odd ones), which
// evens out the work the way longest-first list scheduling does
// (KDECL_FMHA_SM90_GRID=per_tile launches one block per tile instead: an A/B switch).
// Three warpgroups:
//  * the producer warpgroup gives most of its registers away (setmaxnreg) and
//    one of its threads issues TMA copies: Q once per tile (into one of two
//    buffers where shared memory allows, so that the next tile's Q lands while
//    this tile runs; else into the one the consumers have just released), then
//    K and V tiles of
//    block_n keys into a `stages`-deep ring, each stage guarded by a "full"
//    mbarrier (transaction bytes) and an "empty" one (consumer arrivals), K and
//    V separately so that Q K^T starts before V has landed; the ring runs on
//    across tiles;
//  * two consumer warpgroups of 64 query rows each take the registers and, per
//    key tile, compute S = Q K^T with wgmma (Q and K from shared memory, both
//    K-major), turn S into log2-domain logits (scale folded into one multiply,
//    masked entries -inf), update the running row maximum and sum (online
//    softmax, exp2), convert P to 16 bits in registers (the accumulator layout
//    of S is wgmma's register-A layout) and accumulate O += P V with wgmma
//    reading V from shared memory N-major (the transpose bit).
// TMA zero-fills rows past the tensor; keys past the sequence are masked, so
// any Sq and Skv work. At the end O is divided by the row sum and written with
// predicated stores; the LSE on request. Rows that see no key give O = 0 and
// LSE = -inf.
//
// Run-time parameters: the mask kind and window, batch or group mode (rows of
// one packed tensor from cu_seqlens), GQA (K/V head = query head / group), the
// LSE, strides (any whose bytes TMA can address). docs/fmha.md.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/kernels/cuda/fast_exp2.cuh"
#include "kdecl/kernels/cuda/fast_exp2_poly.cuh"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/sm90/cp_async_barrier.cuh"
#include "kdecl/kernels/cuda/sm90/mbarrier.cuh"
#include "kdecl/kernels/cuda/sm90/named_barrier_arrive.cuh"
#include "kdecl/kernels/cuda/sm90/tensor_map_4d.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load.cuh"
#include "kdecl/kernels/cuda/sm90/tma_load_4d.cuh"
#include "kdecl/kernels/cuda/sm90/warpgroup.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_descriptor.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_mma.cuh"
#include "kdecl/kernels/cuda/sm90/wgmma_rs.cuh"
#include "kdecl/kernels/fmha/cuda/score_mod.cuh"
#include "kdecl/kernels/fmha/cuda/sm90/fmha_sm90_config.cuh"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"

// A soft-capped softmax asks the special-function unit for two values per logit (tanh and 2^x).
// One exponential in KDECL_FMHA_SM90_EXP2_POLY_EVERY of each row (by column) can go to the FMA
// pipes instead (exp2_poly); 0: none. Every share tried (1 in 8 to 1 in 2) was slower on an H100
// (the kernel is latency-bound, docs/perf/h100-2026-12-07-softcap-exp2-split/): a build-time knob
// for benchmarks/softcap_probe.
#ifndef KDECL_FMHA_SM90_EXP2_POLY_EVERY
#define KDECL_FMHA_SM90_EXP2_POLY_EVERY 0
#endif
// Independent partial maxima and sums per softmax row: 1, one dependent chain per row. 2 to 8
// chains gained nothing reproducible on an H100 and slowed the plain head-dim-256 kernel 3-7%
// (docs/perf/h100-2026-12-07-softcap-exp2-split/): a build-time knob for benchmarks/softcap_probe.
#ifndef KDECL_FMHA_SM90_SOFTMAX_CHAINS
#define KDECL_FMHA_SM90_SOFTMAX_CHAINS 1
#endif

namespace kdecl::kernels::cuda::sm90 {

inline constexpr int soft_cap_exp2_poly_every = KDECL_FMHA_SM90_EXP2_POLY_EVERY;

struct fmha_ws_params {
  CUtensorMap map_q, map_k, map_v;  // (head dim, rows, head, batch), 128-byte swizzled boxes
  void* o;
  float* lse;                       // null: not written
  const void* bias;                 // elementwise bias, Q's dtype
  const float* alibi_slopes;
  const float* sinks;
  const std::int32_t* cu_q;         // group mode offsets; null in batch mode
  const std::int32_t* cu_kv;
  std::int64_t o_batch, o_seq, o_head;
  std::int64_t lse_batch, lse_head;
  std::int64_t bias_batch, bias_head, bias_seq;
  bool bias_pairs;                  // the bias and its strides allow 32-bit loads of two adjacent keys
  int alibi_batch_stride;           // 0 (slopes per head) or heads_q
  int seqlen_q, seqlen_kv;          // batch mode
  int q_blocks, heads_q, tiles;     // tiles = q_blocks x heads_q x batch, taken in rounds of gridDim.x
  bool rows_slowest;                // masked: row blocks (longest first) vary slowest, heads fastest
  int hdim_v;                       // the problem's (at most the traits' dv)
  int group;                        // heads_q / heads_kv
  int window_left, window_right;    // masked kernels; negative: unbounded
  bool top_left;                    // diagonal through (0, 0) rather than the bottom-right corner
  float scale, scale_log2, soft_cap, inv_soft_cap;
  // batch_prefill over a paged cache (Tr::paged; kdecl/fmha/paged_kv.hpp): map_k and map_v span the
  // pools as (head dim, page rows, KV head, page); key j of sequence b is row j % page_size of page
  // pages[b * pages_stride (or page_offsets[b]) + j / page_size]; seqlens_kv[b] keys; boxes of
  // 2^box_shift rows; oob_page (the pool's page count) names no page: TMA fills its box with zeros.
  const std::int32_t* pages;
  const std::int32_t* page_offsets;  // page lists; null for a block table
  const std::int32_t* seqlens_kv;
  std::int64_t pages_stride;
  int page_shift, box_shift, oob_page;
};

namespace fmha_ws_detail {

constexpr float ln2 = 0.6931471805599453f;

template <bool Bf16>
__device__ __forceinline__ std::uint32_t pack(float lo, float hi) {
  if constexpr (Bf16) {
    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  } else {
    const __half2 v = __floats2half2_rn(lo, hi);
    return *reinterpret_cast<const std::uint32_t*>(&v);
  }
}

// Which key tiles a block visits, for one sequence.
struct key_range {
  int n_begin, n_blocks;
};

// One tile of work: 128 query rows of one head of one sequence, the keys they see.
struct fmha_tile {
  int m0, rows, h, hk, b, batch;  // batch: the tensors' batch index (0 in group mode)
  int q_row0, kv_row0, sq, skv, offset;
  key_range kr;
  bool empty;  // no query row here (a short sequence of a varlen batch): nothing to do, not even stores
};

template <class Tr>
__device__ __forceinline__ key_range keys_of_block(const fmha_ws_params& p, int m0, int rows, int skv, int offset) {
  int j_lo = 0, j_hi = skv - 1;
  if constexpr (Tr::masked) {
    if (p.window_left >= 0) j_lo = max(0, m0 + offset - p.window_left);
    if (p.window_right >= 0) j_hi = min(skv - 1, m0 + rows - 1 + offset + p.window_right);
  }
  const int n_begin = j_lo / Tr::block_n;
  return {n_begin, j_hi >= j_lo ? j_hi / Tr::block_n + 1 - n_begin : 0};
}

// The tile block `block` takes in round r of a grid of `blocks` (-1: none in that round): the
// rounds alternate direction, so a block that got one of the first (longest) tiles of a round gets
// one of the last of the next.
__device__ __forceinline__ int tile_of_round(const fmha_ws_params& p, int block, int blocks, int r) {
  const int i = r * blocks + ((r & 1) ? blocks - 1 - block : block);
  return i < p.tiles ? i : -1;
}

// Tile i. Row blocks come last first (under a causal mask they see the most keys). Unmasked, they
// vary fastest, so that the blocks running together share the K/V of few heads in L2; masked, they
// vary slowest, so that the tiles are taken in decreasing work (query heads vary fastest: those
// sharing a KV head run together).
template <class Tr>
__device__ __forceinline__ fmha_tile tile_at(const fmha_ws_params& p, int i) {
  fmha_tile w{};
  const int heads_and_batches = p.tiles / p.q_blocks;
  const int m_rev = p.rows_slowest ? i / heads_and_batches : i % p.q_blocks;
  const int rest = p.rows_slowest ? i % heads_and_batches : i / p.q_blocks;  // head + heads_q x sequence
  w.h = rest % p.heads_q;
  w.b = rest / p.heads_q;
  w.m0 = (p.q_blocks - 1 - m_rev) * Tr::block_m;
  w.sq = p.seqlen_q;
  w.skv = p.seqlen_kv;
  w.batch = w.b;
  if (p.cu_q != nullptr) {
    w.q_row0 = p.cu_q[w.b];
    w.sq = p.cu_q[w.b + 1] - w.q_row0;
    if constexpr (Tr::paged) {
      w.kv_row0 = 0;  // keys are addressed through the sequence's pages
      w.skv = p.seqlens_kv[w.b];
    } else {
      w.kv_row0 = p.cu_kv[w.b];
      w.skv = p.cu_kv[w.b + 1] - w.kv_row0;
    }
    w.batch = 0;
  }
  w.empty = w.m0 >= w.sq;
  if (w.empty) return w;
  w.rows = min(Tr::block_m, w.sq - w.m0);
  w.hk = w.h / p.group;
  w.offset = p.top_left ? 0 : w.skv - w.sq;  // query i's diagonal key is i + offset
  w.kr = keys_of_block<Tr>(p, w.m0, w.rows, w.skv, w.offset);
  return w;
}

}  // namespace fmha_ws_detail

// The consumers' schedules (docs/fmha.md):
//   plain     one tile after the other: S, softmax, P V;
//   overlap   intra-warpgroup overlap: S(t) and P(t-1) V(t-1) are issued together and the softmax
//             of tile t runs while P(t-1) V(t-1) is on the tensor cores;
//   pingpong  overlap, plus the two consumer warpgroups take turns issuing their GEMMs (two
//             named barriers), so one's softmax runs under the other's GEMMs.
enum class fmha_ws_schedule : int { plain, overlap, pingpong };

template <class Tr, fmha_ws_schedule Schedule>
__global__ void __launch_bounds__(Tr::threads, 1) tma_wgmma_ws_fmha_kernel(const __grid_constant__ fmha_ws_params p) {
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Kernel-set TUs are compiled for several targets; this kernel exists only as
  // sm_90a code (wgmma, TMA, setmaxnreg). run() never launches it elsewhere.
  __trap();
#else
  using namespace fmha_ws_detail;
  using T = typename Tr::element;
  constexpr int BN = Tr::block_n, S = Tr::stages;
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  extern __shared__ unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (shared_address(smem_raw) & 1023)) & 1023);
  unsigned char* s_q = smem;  // q_buffers tiles, taken in turn
  unsigned char* s_k = s_q + Tr::q_buffers * Tr::q_bytes;
  unsigned char* s_v = s_k + S * Tr::k_stage_bytes;
  auto* bars = reinterpret_cast<std::uint64_t*>(smem + Tr::barrier_offset);
  std::uint64_t* k_full = bars;
  std::uint64_t* k_empty = bars + S;
  std::uint64_t* v_full = bars + 2 * S;
  std::uint64_t* v_empty = bars + 3 * S;
  std::uint64_t* q_full = bars + 4 * S;                   // per Q buffer
  std::uint64_t* q_empty = bars + 4 * S + Tr::q_buffers;

  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) {
      mbarrier_init(&k_full[s], 1);
      mbarrier_init(&v_full[s], 1);
      mbarrier_init(&k_empty[s], Tr::consumer_warpgroups * 4);  // one arrival per consumer warp
      mbarrier_init(&v_empty[s], Tr::consumer_warpgroups * 4);
    }
    for (int b = 0; b < Tr::q_buffers; ++b) {
      mbarrier_init(&q_full[b], 1);
      mbarrier_init(&q_empty[b], Tr::consumer_warpgroups * 4);  // Q is free again: one arrival per consumer warp
    }
    mbarrier_init_fence();
  }
  __syncthreads();

  const int warpgroup = int(threadIdx.x) / 128;
  if (warpgroup == 0) {
    // ---- producer ------------------------------------------------------------
    warpgroup_release_registers<Tr::producer_regs>();
    // One thread issues the copies. Over a paged cache a tile takes a copy per box and 64-column
    // chunk (32 of K and 32 of V at head dim 128 with pages of 16 rows), and one thread issuing them
    // all kept the tensor cores waiting: the four warps share them, warps 0 and 1 K, 2 and 3 V, each
    // every other chunk (the first of a pair posts the stage's bytes; a copy that lands before that
    // takes the transaction count below zero for a while, which mbarriers allow). Each warp reads
    // the page table: lane k the page of the tile's box k, before the waits, so that the reads'
    // latency hides under them.
    if (threadIdx.x >= (Tr::paged ? 128u : 1u)) return;
    const int lane = int(threadIdx.x) % 32, producer_warp = int(threadIdx.x) / 32;
    const bool leader = lane == 0;
    const bool loads_k = !Tr::paged || producer_warp < 2, loads_v = !Tr::paged || producer_warp >= 2;
    const int first_chunk = Tr::paged ? producer_warp % 2 : 0;  // paged: chunks first_chunk, + 2, ...
    if (leader && threadIdx.x == 0) {
      tma_prefetch_descriptor(&p.map_q);
      tma_prefetch_descriptor(&p.map_k);
      tma_prefetch_descriptor(&p.map_v);
    }
    int loaded = 0;   // key tiles put into the ring so far, over every tile of this block
    int q_loads = 0;  // tiles whose Q was loaded
    for (int r = 0; r * int(gridDim.x) < p.tiles; ++r) {
      const int i = tile_of_round(p, int(blockIdx.x), int(gridDim.x), r);
      if (i < 0) continue;
      const fmha_tile w = tile_at<Tr>(p, i);
      if (w.empty || w.kr.n_blocks == 0) continue;  // the consumers skip the same tiles
      // Buffer qb last held the Q of the tile q_buffers back: wait until its Q K^T are done.
      const int qb = q_loads % Tr::q_buffers;
      if (leader && producer_warp == 0) {
        if (q_loads >= Tr::q_buffers) mbarrier_wait(&q_empty[qb], ((q_loads / Tr::q_buffers) - 1) & 1);
        mbarrier_arrive_expect_tx(&q_full[qb], Tr::q_bytes);
#pragma unroll
        for (int c = 0; c < Tr::d_chunks; ++c)
          tma_load_4d(s_q + qb * Tr::q_bytes + c * Tr::q_chunk_bytes, &p.map_q, &q_full[qb], c * 64,
                      w.q_row0 + w.m0, w.h, w.batch);
      }
      ++q_loads;
      const std::int32_t* pages = nullptr;  // the sequence's page indices
      if constexpr (Tr::paged)
        pages = p.page_offsets != nullptr ? p.pages + p.page_offsets[w.b] : p.pages + w.b * p.pages_stride;
      for (int t = 0; t < w.kr.n_blocks; ++t, ++loaded) {
        const int s = loaded % S;
        const std::uint32_t wrap_parity = ((loaded / S) & 1) ^ 1;  // the previous use's phase of this stage
        const int j0 = w.kv_row0 + (w.kr.n_begin + t) * BN;
        if constexpr (Tr::paged) {
          // Box k holds keys j0 + k 2^box_shift on; boxes past the sequence name no page (zeros).
          const int boxes = BN >> p.box_shift, jk = j0 + (lane << p.box_shift);
          const int page = lane < boxes && jk < w.skv ? __ldg(pages + (jk >> p.page_shift)) : p.oob_page;
          const int in_page = (1 << p.page_shift) - 1;
          if (loads_k && first_chunk < Tr::d_chunks) {
            if (leader) {
              if (loaded >= S) mbarrier_wait(&k_empty[s], wrap_parity);
              if (first_chunk == 0) mbarrier_arrive_expect_tx(&k_full[s], Tr::k_stage_bytes);
            }
            for (int k = 0; k < boxes; ++k) {
              const int pg = __shfl_sync(0xffffffffu, page, k), row = (j0 + (k << p.box_shift)) & in_page;
              if (leader)
#pragma unroll
                for (int c = first_chunk; c < Tr::d_chunks; c += 2)
                  tma_load_4d(s_k + s * Tr::k_stage_bytes + c * Tr::kv_chunk_bytes + (k << p.box_shift) * Tr::row_bytes,
                              &p.map_k, &k_full[s], c * 64, row, w.hk, pg);
            }
          }
          if (loads_v && first_chunk < Tr::dv_chunks) {
            if (leader) {
              if (loaded >= S) mbarrier_wait(&v_empty[s], wrap_parity);
              if (first_chunk == 0) mbarrier_arrive_expect_tx(&v_full[s], Tr::v_stage_bytes);
            }
            for (int k = 0; k < boxes; ++k) {
              const int pg = __shfl_sync(0xffffffffu, page, k), row = (j0 + (k << p.box_shift)) & in_page;
              if (leader)
#pragma unroll
                for (int c = first_chunk; c < Tr::dv_chunks; c += 2)
                  tma_load_4d(s_v + s * Tr::v_stage_bytes + c * Tr::kv_chunk_bytes + (k << p.box_shift) * Tr::row_bytes,
                              &p.map_v, &v_full[s], c * 64, row, w.hk, pg);
            }
          }
        } else {
          if (loaded >= S) mbarrier_wait(&k_empty[s], wrap_parity);
          mbarrier_arrive_expect_tx(&k_full[s], Tr::k_stage_bytes);
#pragma unroll
          for (int c = 0; c < Tr::d_chunks; ++c)
            tma_load_4d(s_k + s * Tr::k_stage_bytes + c * Tr::kv_chunk_bytes, &p.map_k, &k_full[s], c * 64, j0, w.hk,
                        w.batch);
          if (loaded >= S) mbarrier_wait(&v_empty[s], wrap_parity);
          mbarrier_arrive_expect_tx(&v_full[s], Tr::v_stage_bytes);
#pragma unroll
          for (int c = 0; c < Tr::dv_chunks; ++c)
            tma_load_4d(s_v + s * Tr::v_stage_bytes + c * Tr::kv_chunk_bytes, &p.map_v, &v_full[s], c * 64, j0, w.hk,
                        w.batch);
        }
      }
    }
    return;
  }

  // ---- consumers ---------------------------------------------------------------
  warpgroup_claim_registers<Tr::consumer_regs>();
  const int consumer = warpgroup - 1;
  const int tw = int(threadIdx.x) % 128, warp = tw / 32, lane = tw % 32;
  const int t4 = lane % 4;
  const int wg_row0 = consumer * 64;                  // this warpgroup's first row in the block
  const int row_a = wg_row0 + warp * 16 + lane / 4;   // the thread's two rows: row_a and row_a + 8
  using mma_s = wgmma_m64k16<Tr::type, BN, 0, 0>;
  using mma_o = wgmma_m64k16_rs<Tr::type, Tr::dv, 1>;
  constexpr int SR = BN / 2, OR = Tr::dv / 2;  // accumulator registers of S and O
  // Without a bias the logit is a positive multiple of a value u held in acc_s: u = s (the raw score,
  // logit = scale_log2 * u) or, with a soft-cap, u = tanh(s * scale / cap) (logit = cap * log2(e) * u).
  // Maxima are taken on u and the multiple is folded into the exponent's FMA. With a bias the logits
  // are computed first.
  constexpr bool raw_scores = !Tr::soft_cap && Tr::bias == fmha_bias::none;
  constexpr bool capped_scores = Tr::soft_cap && Tr::bias == fmha_bias::none;
  constexpr bool scaled_later = raw_scores || capped_scores;
  constexpr int poly_every = Tr::soft_cap ? soft_cap_exp2_poly_every : 0;
  // Element i of acc_s lies in the thread's row (i / 2) % 2, at column column_of(i) of the row's SR / 2.
  constexpr auto column_of = [](int i) { return 2 * (i / 4) + i % 2; };
  // Whether the exponential of the row's column-th element goes through exp2_poly.
  constexpr auto on_fma_pipes = [](int column) { return poly_every > 0 && column % (poly_every > 0 ? poly_every : 1) == 0; };

  float acc_o[OR];
  float row_max[2], row_sum[2];
  float acc_s[SR];
  constexpr bool bias_tensor = Tr::bias == fmha_bias::elementwise;
  float bias_s[bias_tensor ? SR : 1];  // the elementwise bias of acc_s's elements, loaded ahead of S
  std::uint32_t pa[BN / 16][4];  // P of the previous tile, wgmma's register-A fragments
  fmha_tile w{};                 // the tile in hand
  int ring = 0;                  // key tiles consumed before it: the ring position of its first one
  const T* bias = nullptr;
  fmha_score_mod mod{p.scale, p.scale_log2, p.soft_cap, p.inv_soft_cap, 0.0f, p.bias_seq};
  const float later_scale = raw_scores ? p.scale_log2 : fmha_capped_log2_scale(mod);

  const std::uint32_t q_rows = shared_address(s_q) + wg_row0 * Tr::row_bytes;  // in Q buffer 0
  std::uint32_t q_base = q_rows;                                               // in the tile's Q buffer
  const std::uint32_t k_base = shared_address(s_k), v_base = shared_address(s_v);
  auto stage = [&](int t) { return (ring + t) % S; };
  auto phase = [&](int t) { return std::uint32_t(((ring + t) / S) & 1); };

  // Issues S = Q K^T on stage s (K-major Q and K: k-steps of 16 values = 32 bytes along a swizzled row).
  auto issue_qk = [&](int s) {
#pragma unroll
    for (int kk = 0; kk < Tr::d / 16; ++kk) {
      const std::uint32_t within = (kk % 4) * 32;
      const std::uint64_t da =
          make_wgmma_descriptor(q_base + (kk / 4) * Tr::q_chunk_bytes + within, 16, swizzle_atom_bytes);
      const std::uint64_t db = make_wgmma_descriptor(
          k_base + s * Tr::k_stage_bytes + (kk / 4) * Tr::kv_chunk_bytes + within, 16, swizzle_atom_bytes);
      mma_s::run(acc_s, da, db, kk > 0 ? 1 : 0);
    }
    wgmma_commit_group();
  };
  // Issues O += P V on stage s: V N-major, 16 keys = 16 swizzled rows = 2 KiB per k-step, dv chunks a tile apart.
  auto issue_pv = [&](int s) {
#pragma unroll
    for (int kb = 0; kb < BN / 16; ++kb) {
      const std::uint64_t dv_desc = make_wgmma_descriptor(v_base + s * Tr::v_stage_bytes + kb * 16 * Tr::row_bytes,
                                                          Tr::kv_chunk_bytes, swizzle_atom_bytes);
      mma_o::run(acc_o, pa[kb], dv_desc, 1);
    }
    wgmma_commit_group();
  };
  // The elementwise bias of key tile t into bias_s, issued while S(t) is on the tensor cores. Rows past
  // the sequence read its last row (their results are never stored); inside the keys, the two adjacent
  // keys a thread holds come in one 32-bit load where aligned, and a key bias ([.., 1, Skv]: rows 0
  // elements apart) is loaded once for both rows.
  auto load_bias = [&](int t) {
    if constexpr (bias_tensor) {
      const int j0 = (w.kr.n_begin + t) * BN, jb = j0 + 2 * t4;
      const T* row[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) row[r] = bias + std::int64_t(min(w.m0 + row_a + 8 * r, w.sq - 1)) * p.bias_seq;
      if (p.bias_pairs && j0 + BN <= w.skv) {
        const bool one_row = p.bias_seq == 0;
#pragma unroll
        for (int k = 0; k < BN / 8; ++k)
#pragma unroll
          for (int r = 0; r < 2; ++r) {
            if (r == 1 && one_row) {
              bias_s[4 * k + 2] = bias_s[4 * k];
              bias_s[4 * k + 3] = bias_s[4 * k + 1];
              continue;
            }
            using pair = std::conditional_t<Tr::bf16, __nv_bfloat162, __half2>;
            const pair v = *reinterpret_cast<const pair*>(row[r] + jb + 8 * k);
            bias_s[4 * k + 2 * r] = fmha_to_float(v.x);
            bias_s[4 * k + 2 * r + 1] = fmha_to_float(v.y);
          }
      } else {
#pragma unroll
        for (int i = 0; i < SR; ++i) {
          const int j = jb + 8 * (i / 4) + i % 2;
          bias_s[i] = j < w.skv ? fmha_to_float(row[(i / 2) % 2][j]) : 0.0f;
        }
      }
    }
  };
  // S of key tile t -> P = 2^(later_scale * u - new max) in acc_s (the scale folded into one FMA per
  // element; maxima are taken on u, the scale being positive); returns the factors O and the sums
  // scale by. Row maxima are kept in the log2 domain.
  auto softmax = [&](int t, float (&rescale)[2]) {
    const int j0 = (w.kr.n_begin + t) * BN;
    // Masked out (and keys past the sequence) -inf. Tiles inside the band and the sequence skip the
    // per-element test.
    bool edge = j0 + BN > w.skv;
    if constexpr (Tr::masked) {
      const int i_min = w.m0 + wg_row0, i_max = w.m0 + wg_row0 + 63;
      const bool inside_left = p.window_left < 0 || j0 >= i_max + w.offset - p.window_left;
      const bool inside_right = p.window_right < 0 || j0 + BN - 1 <= i_min + w.offset + p.window_right;
      edge = edge || !inside_left || !inside_right;
    }
    if constexpr (capped_scores) {
#pragma unroll
      for (int i = 0; i < SR; ++i) acc_s[i] = fmha_capped_tanh(acc_s[i], mod, fmha_tanh_sfu{});
    } else if constexpr (!raw_scores) {
#pragma unroll
      for (int i = 0; i < SR; ++i) {
        const int qi = w.m0 + row_a + 8 * ((i / 2) % 2);
        const int j = j0 + 8 * (i / 4) + 2 * t4 + i % 2;
        if constexpr (bias_tensor) acc_s[i] = fmha_logit_log2_biased<Tr::soft_cap>(acc_s[i], mod, bias_s[i]);
        else acc_s[i] = fmha_logit_log2<Tr::soft_cap, Tr::bias>(acc_s[i], mod, bias, qi, j, w.offset, w.sq, w.skv);
      }
    }
    if (edge) {
      // Each of the thread's two rows sees the keys [lo, hi]; relative to its first column jb, element i
      // sits at column 8 (i / 4) + i % 2, a constant: two compares with immediates and a select per
      // element, no branches (written with || the test compiled to two branches per element).
      const int jb = j0 + 2 * t4;
      int lo[2], hi[2];
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const std::int64_t diag = std::int64_t(w.m0 + row_a + 8 * r) + w.offset;  // the row's diagonal key
        std::int64_t first = 0, last = w.skv - 1;
        if constexpr (Tr::masked) {
          if (p.window_left >= 0 && diag - p.window_left > first) first = diag - p.window_left;
          if (p.window_right >= 0 && diag + p.window_right < last) last = diag + p.window_right;
        }
        // Clamped to just outside the tile's columns (first > last leaves every column hidden).
        lo[r] = first - jb < -1 ? -1 : first - jb > BN ? BN : int(first - jb);
        hi[r] = last - jb > BN ? BN : last - jb < -1 ? -1 : int(last - jb);
      }
#pragma unroll
      for (int i = 0; i < SR; ++i) {
        const int c = 8 * (i / 4) + i % 2, r = (i / 2) % 2;
        const bool hidden = (c < lo[r]) | (c > hi[r]);
        acc_s[i] = hidden ? neg_inf : acc_s[i];
      }
    }
    // Each row's maximum and sum over its SR / 2 elements, in `chains` independent partials (one chain
    // of SR / 2 dependent fmaxf or adds waits its length times their latency; Nsight Compute puts a
    // third of the soft-capped kernel's stall cycles on fixed-latency dependencies). Both rows' loops
    // are interleaved.
    constexpr int chains = KDECL_FMHA_SM90_SOFTMAX_CHAINS;
    auto chain_of = [&](int i) { return column_of(i) % chains; };
    float part[2][chains];
#pragma unroll
    for (int r = 0; r < 2; ++r)
#pragma unroll
      for (int k = 0; k < chains; ++k) part[r][k] = neg_inf;
#pragma unroll
    for (int i = 0; i < SR; ++i) part[(i / 2) % 2][chain_of(i)] = fmaxf(part[(i / 2) % 2][chain_of(i)], acc_s[i]);
    float base[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float block_max = part[r][0];
#pragma unroll
      for (int k = 1; k < chains; ++k) block_max = fmaxf(block_max, part[r][k]);
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 1));
      block_max = fmaxf(block_max, __shfl_xor_sync(0xffffffffu, block_max, 2));
      const float m_new = fmaxf(row_max[r], scaled_later ? block_max * later_scale : block_max);
      base[r] = m_new == neg_inf ? 0.0f : m_new;  // nothing visible yet: everything stays 0
      rescale[r] = exp2_approx(row_max[r] - base[r]);
      row_max[r] = m_new;
#pragma unroll
      for (int k = 0; k < chains; ++k) part[r][k] = 0.0f;
    }
#pragma unroll
    for (int i = 0; i < SR; ++i) {
      const int r = (i / 2) % 2;
      const float x = scaled_later ? fmaf(acc_s[i], later_scale, -base[r]) : acc_s[i] - base[r];
      acc_s[i] = on_fma_pipes(column_of(i)) ? exp2_poly(x) : exp2_approx(x);
      part[r][chain_of(i)] += acc_s[i];
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float sum = part[r][0];
#pragma unroll
      for (int k = 1; k < chains; ++k) sum += part[r][k];
      row_sum[r] = row_sum[r] * rescale[r] + sum;
    }
  };
  auto rescale_o = [&](const float (&rescale)[2]) {
#pragma unroll
    for (int i = 0; i < OR; ++i) acc_o[i] *= rescale[(i / 2) % 2];
  };
  // P to 16 bits: accumulator registers 8kb..8kb+7 are k-step kb's A fragment.
  auto pack_p = [&] {
#pragma unroll
    for (int kb = 0; kb < BN / 16; ++kb)
#pragma unroll
      for (int r = 0; r < 4; ++r) pa[kb][r] = pack<Tr::bf16>(acc_s[8 * kb + 2 * r], acc_s[8 * kb + 2 * r + 1]);
  };

  // A paged cache's last page may hold anything after the sequence's last key (a stale or never
  // written slot, NaN included): P is 0 there, but 0 x NaN is NaN, so before the P V of a tile that
  // ends past the sequence its V rows there are zeroed (whole 128-byte rows: the swizzle permutes
  // within a row). Both warpgroups write the same zeros; each fences its own writes into the async
  // proxy and syncs its 128 threads (named barrier 3 + consumer) before its wgmma reads them.
  auto clear_v_tail = [&](int s, int t) {
    if constexpr (Tr::paged) {
      const int valid = w.skv - (w.kr.n_begin + t) * BN;
      if (valid >= BN) return;
      const int rows = BN - valid;
      unsigned char* vs = s_v + s * Tr::v_stage_bytes + valid * Tr::row_bytes;
      for (int i = tw; i < Tr::dv_chunks * rows * 8; i += 128) {
        const int c = i / (rows * 8), rest = i % (rows * 8);
        *reinterpret_cast<uint4*>(vs + c * Tr::kv_chunk_bytes + rest * 16) = make_uint4(0, 0, 0, 0);
      }
      fence_proxy_async_shared();
      named_barrier_sync(3 + consumer, 128);
    }
  };

  // Ping-pong turns: warpgroup c waits on barrier 1 + c before issuing, then hands the turn on. Both
  // warpgroups issue the same GEMMs (they work on the same tiles), so the turns alternate over the
  // whole kernel, across tiles: one warpgroup's epilogue and next Q K^T run under the other's last
  // P V. The first warpgroup goes first (the second arrives once up front) and takes the second's
  // last hand-over after its loop, which leaves both barriers empty at the exit.
  constexpr bool pingpong = Schedule == fmha_ws_schedule::pingpong;
  constexpr int turn_threads = 256;
  const int my_turn = 1 + consumer, other_turn = 2 - consumer;
  auto take_turn = [&] {
    if constexpr (pingpong) named_barrier_sync(my_turn, turn_threads);
  };
  auto pass_turn = [&] {
    if constexpr (pingpong) named_barrier_arrive(other_turn, turn_threads);
  };
  if constexpr (pingpong) {
    if (consumer == 1) named_barrier_arrive(1, turn_threads);
  }
  // Q K^T of the tile are all done: the producer may load another tile's Q into its buffer.
  int qb = 0;  // the tile's Q buffer
  auto release_q = [&] {
    if (lane == 0) mbarrier_arrive(&q_empty[qb]);
  };

  int q_uses = 0;  // tiles whose Q this block consumed
  for (int r = 0; r * int(gridDim.x) < p.tiles; ++r) {
    const int tile = tile_of_round(p, int(blockIdx.x), int(gridDim.x), r);
    if (tile < 0) continue;
    w = tile_at<Tr>(p, tile);
    if (w.empty) continue;
#pragma unroll
    for (int i = 0; i < OR; ++i) acc_o[i] = 0.0f;
    // Sinks: the sink's logit starts the running maximum, and one thread of each quad holds its 1 in the
    // (per-thread partial) row sum.
    const float sink = Tr::sink ? p.sinks[w.h] * fmha_log2e : neg_inf;
    row_max[0] = row_max[1] = sink;
    row_sum[0] = row_sum[1] = Tr::sink && t4 == 0 ? 1.0f : 0.0f;
    if constexpr (Tr::bias == fmha_bias::alibi) mod.slope = p.alibi_slopes[w.b * p.alibi_batch_stride + w.h];
    if constexpr (Tr::bias == fmha_bias::elementwise)
      bias = static_cast<const T*>(p.bias) + std::int64_t(w.b) * p.bias_batch + std::int64_t(w.h) * p.bias_head;
    const int n = w.kr.n_blocks;

    if (n > 0) {
      qb = q_uses % Tr::q_buffers;
      q_base = q_rows + qb * Tr::q_bytes;
      mbarrier_wait(&q_full[qb], (q_uses / Tr::q_buffers) & 1);
      if constexpr (Schedule == fmha_ws_schedule::plain) {
        // One tile at a time: S, softmax, P V.
        for (int t = 0; t < n; ++t) {
          const int s = stage(t);
          mbarrier_wait(&k_full[s], phase(t));
          wgmma_fence();
          issue_qk(s);
          load_bias(t);
          wgmma_wait_group<0>();
          fence_accumulators(acc_s);
          if (lane == 0) mbarrier_arrive(&k_empty[s]);
          if (t == n - 1) release_q();
          float rescale[2];
          softmax(t, rescale);
          rescale_o(rescale);
          pack_p();
          mbarrier_wait(&v_full[s], phase(t));
          if (t == n - 1) clear_v_tail(s, t);
          wgmma_fence();
          issue_pv(s);
          wgmma_wait_group<0>();
          fence_accumulators(acc_o);
          if (lane == 0) mbarrier_arrive(&v_empty[s]);
        }
      } else {
        // Intra-warpgroup overlap (FlashAttention-3): the softmax of tile t runs while the tensor
        // cores compute P(t-1) V(t-1); S(t) was issued just before it.
        mbarrier_wait(&k_full[stage(0)], phase(0));
        take_turn();
        wgmma_fence();
        issue_qk(stage(0));
        pass_turn();
        load_bias(0);
        wgmma_wait_group<0>();
        fence_accumulators(acc_s);
        if (lane == 0) mbarrier_arrive(&k_empty[stage(0)]);
        {
          float rescale[2];
          softmax(0, rescale);  // O is still zero: nothing to rescale
        }
        pack_p();
        for (int t = 1; t < n; ++t) {
          const int s = stage(t), prev = stage(t - 1);
          mbarrier_wait(&k_full[s], phase(t));
          mbarrier_wait(&v_full[prev], phase(t - 1));
          take_turn();
          wgmma_fence();
          issue_qk(s);
          issue_pv(prev);
          pass_turn();
          load_bias(t);
          wgmma_wait_group<1>();  // S(t) has landed; P(t-1) V(t-1) may still run
          fence_accumulators(acc_s);
          if (lane == 0) mbarrier_arrive(&k_empty[s]);
          float rescale[2];
          softmax(t, rescale);
          wgmma_wait_group<0>();  // P(t-1) V(t-1) done: O and the P registers are free
          fence_accumulators(acc_o);
          if (lane == 0) mbarrier_arrive(&v_empty[prev]);
          rescale_o(rescale);
          pack_p();
        }
        release_q();
        const int last = stage(n - 1);
        mbarrier_wait(&v_full[last], phase(n - 1));
        clear_v_tail(last, n - 1);
        take_turn();
        wgmma_fence();
        issue_pv(last);
        pass_turn();
        wgmma_wait_group<0>();
        fence_accumulators(acc_o);
        if (lane == 0) mbarrier_arrive(&v_empty[last]);
      }
      ring += n;
      ++q_uses;
    }

    // ---- epilogue: O / l in 8-byte stores; the LSE ----------------------------------
    // A quad's four threads hold columns 8k + 2 t4 and + 1 of every group k of 8 columns of their two
    // rows. One exchange between neighbours (xor 1) gives each thread four adjacent columns of groups k
    // and k + 1 (even t4 keeps group k and takes its neighbour's half of it, odd t4 group k + 1), so that
    // a quad writes whole 32-byte sectors (4-byte stores left every sector half written and doubled the
    // store requests). why_not() asks O's address and strides for it.
    T* o = static_cast<T*>(p.o) + std::int64_t(w.batch) * p.o_batch + std::int64_t(w.q_row0) * p.o_seq +
           std::int64_t(w.h) * p.o_head;
    const bool odd = t4 & 1;
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      float l = row_sum[r];
      l += __shfl_xor_sync(0xffffffffu, l, 1);
      l += __shfl_xor_sync(0xffffffffu, l, 2);
      const float inv = l > 0.0f ? 1.0f / l : 0.0f;  // a row that saw nothing writes zeros
      const int qi = w.m0 + row_a + 8 * r;
      const bool row_in = qi < w.sq;  // every lane takes part in the exchanges; only rows inside store
      T* orow = o + std::int64_t(row_in ? qi : 0) * p.o_seq;
#pragma unroll
      for (int k = 0; k < Tr::dv / 8; k += 2) {
        const int i0 = 4 * k + 2 * r, i1 = i0 + 4;  // group k's and group k + 1's registers of row r
        const std::uint32_t v0 = pack<Tr::bf16>(acc_o[i0] * inv, acc_o[i0 + 1] * inv);
        const std::uint32_t v1 = pack<Tr::bf16>(acc_o[i1] * inv, acc_o[i1 + 1] * inv);
        const std::uint32_t got = __shfl_xor_sync(0xffffffffu, odd ? v0 : v1, 1);
        const std::uint32_t kept = odd ? v1 : v0;
        const int col = 8 * (k + odd) + 4 * (t4 >> 1);
        if (row_in && col < p.hdim_v)
          *reinterpret_cast<uint2*>(orow + col) = odd ? make_uint2(got, kept) : make_uint2(kept, got);
      }
      if (row_in && p.lse != nullptr && t4 == 0) {
        const float lse = l > 0.0f ? (row_max[r] + log2f(l)) * ln2 : neg_inf;
        p.lse[std::int64_t(w.batch) * p.lse_batch + std::int64_t(w.h) * p.lse_head + w.q_row0 + qi] = lse;
      }
    }
  }
  if constexpr (pingpong) {
    if (consumer == 0) take_turn();  // the second warpgroup's last hand-over (or its arrival up front)
  }
#endif
}

namespace fmha_ws_detail {

// Launches the kernel of traits Tr on kp (its tiles set). The consumers' schedule: pingpong, or
// KDECL_FMHA_SM90_SCHEDULE=plain|overlap|pingpong (an A/B switch for measurements, read per call;
// the paged kernels are built with pingpong only). The grid: persistent (one block per SM: the shared
// memory allows no second), so that a block's next tile loads under this one's last GEMMs.
// (H200, 2026-12-02: batch mode without a mask, 512-long, 0.784x cuDNN persistent against 0.717x one
// block per tile; group mode, whose tiles run in row-block order (the caller's rows_slowest), the
// causal varlen lists 0.905x -> 0.971x.) KDECL_FMHA_SM90_GRID=per_tile (read per call) launches one
// block per tile instead, which the hardware hands out as SMs free up: an A/B switch.
template <class Tr>
status launch(const fmha_ws_params& kp, cudaStream_t stream) {
  const char* env = std::getenv("KDECL_FMHA_SM90_SCHEDULE");
  const std::string schedule = env != nullptr ? env : "";
  auto kernel = tma_wgmma_ws_fmha_kernel<Tr, fmha_ws_schedule::pingpong>;
  if constexpr (!Tr::paged) {
    if (schedule == "plain") kernel = tma_wgmma_ws_fmha_kernel<Tr, fmha_ws_schedule::plain>;
    if (schedule == "overlap") kernel = tma_wgmma_ws_fmha_kernel<Tr, fmha_ws_schedule::overlap>;
  }
  const cudaError_t attr = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::smem_bytes);
  if (attr != cudaSuccess) return status::error(std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(attr));
  const char* grid_env = std::getenv("KDECL_FMHA_SM90_GRID");
  const std::string grid_choice = grid_env != nullptr ? grid_env : "";
  const bool per_tile = grid_choice == "per_tile";
  const int sms = current_device_info().sm_count;
  const int blocks = per_tile || sms <= 0 ? kp.tiles : std::min(kp.tiles, sms);
  kernel<<<blocks, Tr::threads, Tr::smem_bytes, stream>>>(kp);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("tma_wgmma_ws attention launch: ") + cudaGetErrorString(e));
  return status::ok();
}

}  // namespace fmha_ws_detail

// The fmha_kernel contract for one tma_wgmma_ws key (kernels/fmha/fmha_kernel.hpp).
template <fmha_key K>
struct fmha {
  static_assert(key_unsupported_reason(K) == nullptr,
                "kdecl: the tma_wgmma_ws attention kernel cannot build this key");
  using traits = fmha_ws_traits_of<K>;
  static_assert(ws_smem_formula_agrees<K>(),
                "kdecl: fmha_specs.hpp's tma_q_kv_ring_o formula must match the kernel");

  static std::size_t workspace_bytes(const fmha_problem&) { return 0; }

  // The tensors as TMA sees them (head dim, rows, head, batch).
  static tensor_view_4d view(const void* base, const fmha_problem& p, std::int64_t hdim, std::int64_t seq,
                             std::int64_t heads, const fmha_strides& st, int box_rows) {
    const bool group = p.group_mode();
    return {base, p.qkv, {hdim, seq, heads, group ? 1 : p.batch}, {st.seq, st.head, st.batch}, 64, box_rows};
  }
  static tensor_view_4d q_view(const fmha_problem& p, const fmha_args& a) {
    return view(a.q, p, p.hdim_q, p.group_mode() ? p.total_q() : p.seqlen_q, p.heads_q, p.q_strides, traits::block_m);
  }
  static tensor_view_4d k_view(const fmha_problem& p, const fmha_args& a) {
    return view(a.k, p, p.hdim_q, p.group_mode() ? p.total_kv() : p.seqlen_kv, p.heads_kv, p.k_strides,
                traits::block_n);
  }
  static tensor_view_4d v_view(const fmha_problem& p, const fmha_args& a) {
    return view(a.v, p, p.hdim_v, p.group_mode() ? p.total_kv() : p.seqlen_kv, p.heads_kv, p.v_strides,
                traits::block_n);
  }

  static std::optional<std::string> why_not(const fmha_problem& p, const fmha_args& a) {
    if (p.hdim_q > traits::d || p.hdim_v > traits::dv) return "head dims exceed the kernel's";
    if (p.hdim_q % 8 != 0 || p.hdim_v % 8 != 0) return "head dims must be multiples of 8 (16-byte rows for TMA)";
    if (p.group_mode() && (!a.cu_seqlens_q || !a.cu_seqlens_kv))
      return "group mode needs cu_seqlens_q and cu_seqlens_kv pointers";
    if (p.total_q() > 0 && (!a.q || !a.o)) return "Q or O pointer is null";
    if (p.total_kv() > 0 && (!a.k || !a.v)) return "K or V pointer is null";
    if (p.lse && !a.lse && p.total_q() > 0) return "the problem asks for the LSE but its pointer is null";
    if (p.total_q() >= std::numeric_limits<int>::max() || p.total_kv() >= std::numeric_limits<int>::max() ||
        p.seqlen_q >= std::numeric_limits<int>::max() - traits::block_m)
      return "TMA coordinates are 32-bit: sequence rows must stay below 2^31";
    if ((p.seqlen_q + traits::block_m - 1) / traits::block_m * p.heads_q * p.batch >= (std::int64_t(1) << 30))
      return "the kernel numbers its tiles (128 query rows x query heads x sequences) with 32 bits: "
             "fewer than 2^30 tiles";
    if (reinterpret_cast<std::uintptr_t>(a.o) % 8 != 0 || p.o_strides.seq % 4 != 0 || p.o_strides.head % 4 != 0 ||
        p.o_strides.batch % 4 != 0)
      return "O's address and strides must allow 8-byte stores (4 values; the dispatcher's 16-byte access width "
             "asks more)";
    if (p.bias == fmha_bias::elementwise && !a.bias) return "elementwise bias pointer is null";
    if (p.bias == fmha_bias::alibi && !a.alibi_slopes) return "ALiBi slopes pointer is null";
    if (p.sinks && !a.sinks) return "sinks pointer is null";
    if (!(p.effective_scale() > 0.0f))
      return "the softmax scale must be positive (the kernel takes row maxima before scaling); mma_sync takes "
             "any";
    if (p.total_q() > 0 && p.total_kv() == 0)
      return "no sequence has a key (TMA maps no empty K/V tensor); the mma_sync kernel writes the zeros";
    if (p.total_q() > 0 && p.total_kv() > 0) {
      if (auto why = tma_view_unsupported(q_view(p, a))) return "Q: " + *why;
      if (auto why = tma_view_unsupported(k_view(p, a))) return "K: " + *why;
      if (auto why = tma_view_unsupported(v_view(p, a))) return "V: " + *why;
    }
    return std::nullopt;
  }

  // What the running device must provide; checked by run(), not why_not(), so that
  // selection also works offline (for an arch that is not present).
  static std::optional<std::string> device_reason() {
    return device_shortfall("the tma_wgmma_ws attention kernel", {9, 0, /*exact=*/true, traits::smem_bytes});
  }

  static status run(const fmha_problem& p, const fmha_args& a, void* stream) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (auto why = device_reason()) return status::error(*why);
    const std::int64_t q_blocks = (p.seqlen_q + traits::block_m - 1) / traits::block_m;
    if (q_blocks == 0 || p.batch == 0 || p.total_q() == 0) return status::ok();
    const cudaStream_t s = static_cast<cudaStream_t>(stream);
    fmha_ws_params kp{};
    if (auto why = encode_tensor_map_4d(kp.map_q, q_view(p, a))) return status::error("Q tensor map: " + *why);
    if (auto why = encode_tensor_map_4d(kp.map_k, k_view(p, a))) return status::error("K tensor map: " + *why);
    if (auto why = encode_tensor_map_4d(kp.map_v, v_view(p, a))) return status::error("V tensor map: " + *why);

    kp.o = a.o;
    kp.lse = p.lse ? a.lse : nullptr;
    kp.cu_q = p.group_mode() ? a.cu_seqlens_q : nullptr;
    kp.cu_kv = p.group_mode() ? a.cu_seqlens_kv : nullptr;
    kp.o_batch = p.o_strides.batch; kp.o_seq = p.o_strides.seq; kp.o_head = p.o_strides.head;
    kp.lse_batch = p.lse_batch_stride;
    kp.lse_head = p.lse_head_stride;
    kp.seqlen_q = int(p.seqlen_q);
    kp.seqlen_kv = int(p.seqlen_kv);
    kp.hdim_v = int(p.hdim_v);
    kp.group = int(p.heads_q / p.heads_kv);
    set_fmha_mask_and_scales(kp, p);
    kp.bias = a.bias;
    kp.alibi_slopes = a.alibi_slopes;
    kp.sinks = a.sinks;
    kp.bias_batch = p.bias_strides.batch;
    kp.bias_head = p.bias_strides.head;
    kp.bias_seq = p.bias_strides.seq;
    kp.bias_pairs = reinterpret_cast<std::uintptr_t>(a.bias) % 4 == 0 && p.bias_strides.seq % 2 == 0 &&
                    p.bias_strides.head % 2 == 0 && p.bias_strides.batch % 2 == 0;
    kp.alibi_batch_stride = p.alibi_per_batch ? int(p.heads_q) : 0;

    kp.q_blocks = int(q_blocks);
    kp.heads_q = int(p.heads_q);
    kp.tiles = int(q_blocks * p.heads_q * p.batch);
    // Row blocks slowest under a mask (longest first), and in group mode, where a row block exists only
    // in the sequences that long: with row blocks fastest, a grid that is a multiple of the row-block
    // count gives some blocks only the last row blocks, mostly empty (BERT's packed batch, unmasked:
    // 0.86x cuDNN persistent against 1.02x one block per tile, H200 2026-12-02).
    kp.rows_slowest = p.mask != fmha_mask::none || p.group_mode();
    return fmha_ws_detail::launch<traits>(kp, s);
  }
};

}  // namespace kdecl::kernels::cuda::sm90
