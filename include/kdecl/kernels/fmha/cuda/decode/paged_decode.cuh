// Paged-KV decode attention for sm_80 and newer (fwd_pagedkv, fwd_splitkv + combine).
//
// Decode reads every key and value once and does little arithmetic per byte, so the
// kernel is built around the loads:
//  * one block per (split, KV head, group of 16 query rows, sequence): the 16 rows are
//    the heads_q / heads_kv query heads that share the KV head times the seqlen_q
//    query tokens (row r = head_in_group * seqlen_q + token), so each K/V byte is
//    read once for all of them (more than 16 rows: more row groups, which read the
//    same pages, mostly from L2);
//  * K and V tiles of 64 keys stream through a cp.async ring (16-byte copies, each
//    key's page looked up in the block table or page list one tile ahead of its copies,
//    rows past the split or the head dim zero-filled) 2 to 4 stages deep, Q once into
//    shared memory;
//  * each of the 4 warps takes 16 keys of the tile: S = Q K^T with ldmatrix +
//    mma.sync m16n8k16 (16 query rows, mostly padding when few rows are real: the
//    tensor cores have room to spare), logits with scale and soft-cap in the log2
//    domain, the mask, an online softmax, and O += P V (P stays in registers as the
//    A operand, V through ldmatrix.trans), as the mma_sync forward kernel does;
//  * at the end the 4 warps' (max, sum, O) merge through shared memory. One stage:
//    the sink joins, O is normalized and written with the LSE. Split: the
//    normalized partial O (fp32) and its LSE go to the workspace
//    [batch, heads_q, seqlen_q, splits, hdim] / [.., splits], and the combine kernel
//    (one block of 4 warps per query row) weighs the splits by exp(lse_i - max), adds
//    the sink and writes O and the LSE.
// Splits divide the keys the mask leaves visible (paged_band) in whole 64-key tiles
// (paged_split_range), as the host reference does.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_timeline.cuh"
#include "kdecl/kernels/fmha/paged_pointers.hpp"
#include "kdecl/kernels/fmha/cuda/sm80/fmha_sm80.cuh"  // fmha_detail: exp2_approx, pack, mma
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"

namespace kdecl::kernels::cuda::decode {

struct decode_params {
  const void* q;
  void* o;
  float* lse;  // null: not written (one-stage) / the combine's output
  const void* k_cache;
  const void* v_cache;
  const std::int32_t* block_table;
  const std::int32_t* page_list;  // non-null: page-list mode
  const std::int32_t* page_offsets;
  const std::int32_t* seqlens_kv;
  const float* sinks;
  const float* k_scale;  // fp8 cache: 1 or heads_kv scales (scale_stride 0 or 1)
  const float* v_scale;
  int scale_stride;
  float* part_o;    // split mode: workspace partial outputs; null: one stage
  float* part_lse;
  std::int64_t table_stride;
  std::int64_t q_batch, q_seq, q_head, o_batch, o_seq, o_head;
  std::int64_t k_page, k_row, k_head, v_page, v_row, v_head;
  int seqlen_q, heads_q, hdim, group, rows, row_groups, page_shift, splits;
  int window_left, window_right;  // -1: unbounded
  bool top_left;
  float scale, scale_log2, soft_cap, inv_soft_cap;
};

// T: Q and O (fp16 or bf16); Cache: the cache's element (T, or __nv_fp8_e4m3: its tiles
// land in shared memory as fp8, and each warp widens its ldmatrix fragments to T in
// registers before the mma);
// S: the K/V ring depth (a registered key's stages).
template <class T, class Cache, int D, int S = decode_default_stages(D, sizeof(Cache) == 1)>
struct decode_traits {
  static constexpr bool fp8 = sizeof(Cache) == 1;
  static constexpr int warps = 4, threads = warps * 32;
  static constexpr int block_keys = warps * 16;  // keys per tile
  static constexpr int rows = 16;                // query rows per block (one mma M tile)
  static constexpr int pitch = D * 2 + 16;       // 16-bit rows: odd multiple of 16 bytes, conflict-free ldmatrix
  static constexpr int cache_pitch = D * int(sizeof(Cache)) + 16;  // rows of the cp.async ring
  static constexpr int chunks = D * int(sizeof(Cache)) / 16;       // 16-byte chunks per cached row
  static constexpr int stages = S;
  static constexpr int q_bytes = rows * pitch;
  static constexpr int tile_bytes = block_keys * cache_pitch;  // one of K or V
  static constexpr int ring_bytes = q_bytes + stages * 2 * tile_bytes;
  static constexpr int merge_bytes = warps * rows * D * 4 + warps * rows * 2 * 4;
  static constexpr int smem_bytes = ring_bytes > merge_bytes ? ring_bytes : merge_bytes;
  static_assert(D % 16 == 0 && (pitch / 16) % 2 == 1 && (cache_pitch / 16) % 2 == 1,
                "head dims are multiples of 16, pitches odd in 16-byte units");
  static_assert(smem_bytes == decode_smem_bytes(D, fp8, S), "decode_plan.hpp's decode_smem_bytes must match the kernel");
};

// e4m3 -> T by moving bits: e4m3's sign, 4-bit exponent and 3-bit mantissa land in the
// 16-bit format's fields unchanged, which is the e4m3 value times 2^-k (subnormals too:
// 2^-8 for fp16, exact; 2^-120 for bf16, whose e4m3 subnormals become bf16 subnormals).
// The kernel multiplies 2^k back into the K and V scales. No float conversions. (An e4m3
// NaN byte, 0x7F or 0xFF, reads as -+480: e4m3 has no infinities and a cache holds no NaN.)
template <class T>
inline constexpr float widen_factor = std::is_same_v<T, __half> ? 256.0f : 0x1p120f;

// Two bytes of w, chosen by Selector (a PTX prmt selector whose nibbles 0 and 2 name the
// bytes and nibbles 1 and 3 repeat their signs: prmt replicates a byte's sign where a
// nibble's top bit is set; CUDA documents __byte_perm with 3-bit selectors only, so the
// instruction is written out), widened to two values of T in one 32-bit register. Each
// byte sits in the low byte of a 16-bit lane whose high byte holds its sign; one shift
// puts the 7 magnitude bits where the 16-bit format wants them and the sign on bit 15,
// the mask clears the rest (and what the shift carried over from the lower lane).
template <class T, std::uint32_t Selector>
__device__ __forceinline__ std::uint32_t widen_e4m3_pair(std::uint32_t w) {
  std::uint32_t x;
  asm("prmt.b32 %0, %1, 0, %2;" : "=r"(x) : "r"(w), "n"(Selector));
  if constexpr (std::is_same_v<T, __half>) return (x << 7) & 0xBF80BF80u;  // s, 0, eeee mmm at 13..7
  else return (x << 4) & 0x87F087F0u;                                     // s, 0000, eeee mmm at 10..4
}
inline constexpr std::uint32_t bytes_01 = 0x9180u, bytes_23 = 0xB3A2u;  // K fragments: (d, d + 1) pairs
inline constexpr std::uint32_t bytes_02 = 0xA280u, bytes_13 = 0xB391u;  // V fragments: (key, key + 1) pairs

template <class T, class Cache, int D, int Stages = decode_default_stages(D, sizeof(Cache) == 1)>
__global__ void __launch_bounds__(decode_traits<T, Cache, D, Stages>::threads) paged_decode_kernel(const decode_params p) {
  using namespace sm80;
  using namespace sm80::fmha_detail;
  using Tr = decode_traits<T, Cache, D, Stages>;
  constexpr int BK = Tr::block_keys, S = Tr::stages, C = D / 8, CC = Tr::chunks;
  constexpr int per_chunk = 16 / int(sizeof(Cache));  // cached elements per 16-byte chunk
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  extern __shared__ __align__(128) unsigned char smem[];

  decode_timeline(dk_split, dm_entry);
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, g = lane >> 2, t4 = lane & 3;
  const int split = blockIdx.x, hk = blockIdx.y / p.row_groups, rg = blockIdx.y % p.row_groups, b = blockIdx.z;
  const int skv = p.seqlens_kv[b], sq = p.seqlen_q;

  // The visible band of the sequence, then this split's part of it (paged_band, paged_split_range).
  const int offset = p.top_left ? 0 : skv - sq;
  int lo = 0, hi = skv;
  if (p.window_left >= 0) lo = max(0, offset - p.window_left);
  if (p.window_right >= 0) hi = min(skv, sq - 1 + offset + p.window_right + 1);
  if (hi < lo) hi = lo;
  int chunk = (hi - lo + p.splits - 1) / p.splits;
  chunk = (chunk + BK - 1) / BK * BK;
  const int begin = min(hi, lo + split * chunk), end = min(hi, begin + chunk);
  const int n_tiles = (end - begin + BK - 1) / BK;

  const std::int32_t* table = p.page_list ? p.page_list + p.page_offsets[b] : p.block_table + b * p.table_stride;
  const Cache* kc = static_cast<const Cache*>(p.k_cache) + hk * p.k_head;
  const Cache* vc = static_cast<const Cache*>(p.v_cache) + hk * p.v_head;
  const int page_mask = (1 << p.page_shift) - 1, chunks_valid = p.hdim / 8;
  const int cache_chunks_valid = p.hdim / per_chunk;

  const std::uint32_t s_q = smem_address(smem);
  const std::uint32_t s_k = s_q + Tr::q_bytes;
  const std::uint32_t s_v = s_k + S * Tr::tile_bytes;

  // Q: 16 rows (query head in the group, token), zero past the real rows and the head dim.
  for (int c = tid; c < Tr::rows * C; c += Tr::threads) {
    const int r = c / C, cc = c % C, rgl = rg * Tr::rows + r;
    const bool valid = rgl < p.rows && cc < chunks_valid;
    const T* src = static_cast<const T*>(p.q);
    if (valid) {
      const int head = hk * p.group + rgl / sq, token = rgl % sq;
      src += b * p.q_batch + token * p.q_seq + head * p.q_head + cc * 8;
    }
    cp_async<16>(s_q + std::uint32_t(r * Tr::pitch + cc * 16), src, valid ? 16 : 0);
  }
  // The page-table reads run one tile ahead of the copies: a tile's pages are read into
  // registers (all of a thread's rows together) while the tile before it is computed, so
  // that the copies of a tile never wait on a table read (a dependent DRAM round trip per
  // tile that the block's own compute could not hide: at batch 1 it left most of the
  // bandwidth unused).
  // A thread copies one 16-byte column (cc) of rows r0, r0 + R, r0 + 2R, ... of a tile, so
  // its column pointers and shared-memory offsets are fixed and each row costs the page
  // and slot multiplies only (the loop is issue-bound: the copies' address arithmetic
  // was a third of its instructions).
  constexpr int per_thread = BK * CC / Tr::threads;  // rows per thread per tile
  constexpr int R = Tr::threads / CC;                // rows one pass of the block covers
  static_assert(Tr::threads % CC == 0 && BK % R == 0, "whole rows per pass, whole passes per tile");
  const int r0 = tid / CC, cc0 = tid % CC;
  const bool column_valid = cc0 < cache_chunks_valid;
  const Cache* k_column = kc + cc0 * per_chunk;
  const Cache* v_column = vc + cc0 * per_chunk;
  const std::uint64_t k_page = std::uint64_t(p.k_page), v_page = std::uint64_t(p.v_page);
  const std::uint64_t k_row = std::uint64_t(p.k_row), v_row = std::uint64_t(p.v_row);
  const std::uint32_t ring_at = std::uint32_t(r0 * Tr::cache_pitch + cc0 * 16);
  using tile_pages = std::int32_t[per_thread];
  auto fetch_pages = [&](int t, tile_pages& out) {  // tile t's pages of this thread's rows (0 past the split)
    const int j0 = begin + t * BK + r0;
#pragma unroll
    for (int it = 0; it < per_thread; ++it) {
      const int j = j0 + it * R;
      out[it] = j < end ? table[j >> p.page_shift] : 0;
    }
  };
  auto load_kv = [&](int t, int stage, const tile_pages& pages) {  // pages: fetch_pages(t)
    const int j0 = begin + t * BK + r0;
#pragma unroll
    for (int it = 0; it < per_thread; ++it) {
      const int j = j0 + it * R;
      const bool valid = column_valid && j < end;  // a row past the split reads page 0: in the pool, 0 bytes copied
      const std::uint64_t page = std::uint32_t(pages[it]), slot = std::uint32_t(j & page_mask);
      const std::uint32_t at = std::uint32_t(stage * Tr::tile_bytes + it * R * Tr::cache_pitch) + ring_at;
      cp_async<16>(s_k + at, k_column + (page * k_page + slot * k_row), valid ? 16 : 0);
      cp_async<16>(s_v + at, v_column + (page * v_page + slot * v_row), valid ? 16 : 0);
    }
  };
  // The ring's first S - 1 tiles: their pages are read together (one table round trip before
  // the first copies, not one per tile), then copied; tile S - 1's pages are read for the loop.
  tile_pages first_pages[S - 1], pages;
#pragma unroll
  for (int s = 0; s < S - 1; ++s) fetch_pages(s, first_pages[s]);
#pragma unroll
  for (int s = 0; s < S - 1; ++s) {
    if (s < n_tiles) load_kv(s, s, first_pages[s]);
    cp_async_commit();  // group 0 also holds Q
  }
  fetch_pages(S - 1, pages);
  decode_timeline(dk_split, dm_copies);

  // Each thread's two rows (g, g + 8): the keys their mask lets them see, within the split.
  int vis_lo[2], vis_hi[2];
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    const int token = (rg * Tr::rows + g + 8 * r) % sq, diag = token + offset;
    vis_lo[r] = p.window_left >= 0 ? max(begin, diag - p.window_left) : begin;
    vis_hi[r] = p.window_right >= 0 ? min(end, diag + p.window_right + 1) : end;
  }
  // The keys every row of the warp sees: a slice inside them needs no mask.
  int warp_vis_lo = max(vis_lo[0], vis_lo[1]), warp_vis_hi = min(vis_hi[0], vis_hi[1]);
#pragma unroll
  for (int x = 16; x > 0; x >>= 1) {
    warp_vis_lo = max(warp_vis_lo, __shfl_xor_sync(0xffffffffu, warp_vis_lo, x));
    warp_vis_hi = min(warp_vis_hi, __shfl_xor_sync(0xffffffffu, warp_vis_hi, x));
  }

  // An fp8 cache's K scale joins the softmax scale; its V scale multiplies O at the end.
  float scale = p.scale, scale_log2 = p.scale_log2, v_scale = 1.0f;
  if constexpr (Tr::fp8) {  // the scales also undo the widening's 2^-k (widen_e4m3)
    const float ks = p.k_scale[hk * p.scale_stride] * widen_factor<T>;
    scale *= ks;
    scale_log2 *= ks;
    v_scale = p.v_scale[hk * p.scale_stride] * widen_factor<T>;
  }
  // The soft-cap, cap * tanh(s * scale / cap) in the log2 domain, with tanh on the special-function
  // unit as in the other CUDA attention kernels (score_mod.cuh; tanhf's division and polynomial
  // were some 15 instructions a logit here).
  const float cap_arg = scale * p.inv_soft_cap, cap_log2 = p.soft_cap * log2e;
  float acc_o[D / 8][4];
#pragma unroll
  for (int dt = 0; dt < D / 8; ++dt)
#pragma unroll
    for (int e = 0; e < 4; ++e) acc_o[dt][e] = 0.0f;
  float row_max[2] = {neg_inf, neg_inf}, row_sum[2] = {0.0f, 0.0f};

  cp_async_wait<S - 2>();
  __syncthreads();
  std::uint32_t qa[D / 16][4];
#pragma unroll
  for (int kk = 0; kk < D / 16; ++kk) {
    if constexpr (Tr::fp8) {  // dims in the fp8 K fragments' order: (4 t4, 4 t4 + 1 | 4 t4 + 2, 4 t4 + 3)
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const uint2 q2 = *reinterpret_cast<const uint2*>(smem + (g + 8 * r) * Tr::pitch + (kk * 16 + 4 * t4) * 2);
        qa[kk][r] = q2.x;
        qa[kk][2 + r] = q2.y;
      }
    } else {
      ldmatrix_x4(qa[kk], s_q + std::uint32_t(((lane & 7) + ((lane >> 3) & 1) * 8) * Tr::pitch + (kk * 16 + (lane >> 4) * 8) * 2));
    }
  }

  for (int t = 0; t < n_tiles; ++t) {
    cp_async_wait<S - 2>();
    __syncthreads();  // tile t visible; every warp is done with tile t - 1's stage
    if (t == 0) decode_timeline(dk_split, dm_first_tile);
    if (t + S - 1 < n_tiles) {
      load_kv(t + S - 1, (t + S - 1) % S, pages);
      fetch_pages(t + S, pages);  // lands while tile t is computed
    }
    cp_async_commit();
    const int stage = t % S;
    const int jw = begin + t * BK + warp * 16;  // this warp's first key
    if (jw >= end) continue;                    // warp-uniform: nothing of this slice is in the split
    // This warp's 16 keys of K and V in the ring (rows of Tr::cache_pitch bytes).
    const std::uint32_t k_tile = s_k + stage * Tr::tile_bytes + warp * 16 * Tr::cache_pitch;
    const std::uint32_t v_tile = s_v + stage * Tr::tile_bytes + warp * 16 * Tr::cache_pitch;
    float acc_s[2][4] = {{0.0f, 0.0f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f, 0.0f}};
    if constexpr (Tr::fp8) {
      // An 8 x 16-byte ldmatrix matrix of fp8 K is 8 keys x 16 dims: lane (g, t4) holds key g's
      // dims 4 t4 .. 4 t4 + 3, widened to the B fragment's two registers. The mma then sums
      // dims in the order (4 t4, 4 t4 + 1 | 4 t4 + 2, 4 t4 + 3) where it expects
      // (2 t4, 2 t4 + 1 | 2 t4 + 8, 2 t4 + 9); Q's fragments are loaded in the same order.
#pragma unroll
      for (int kp = 0; kp < D / 32; ++kp) {  // matrices: keys 0-7 / 8-15 x dims 32 kp .. + 15 / + 16 .. + 31
        std::uint32_t kf[4];
        ldmatrix_x4(kf, k_tile + std::uint32_t(((lane & 7) + ((lane >> 3) & 1) * 8) * Tr::cache_pitch + (2 * kp + (lane >> 4)) * 16));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          mma<bf16>(acc_s[0], qa[2 * kp + h], widen_e4m3_pair<T, bytes_01>(kf[2 * h]), widen_e4m3_pair<T, bytes_23>(kf[2 * h]));
          mma<bf16>(acc_s[1], qa[2 * kp + h], widen_e4m3_pair<T, bytes_01>(kf[2 * h + 1]),
                    widen_e4m3_pair<T, bytes_23>(kf[2 * h + 1]));
        }
      }
    } else {
#pragma unroll
      for (int kk = 0; kk < D / 16; ++kk) {
        std::uint32_t kf[4];
        ldmatrix_x4(kf, k_tile + std::uint32_t(((lane & 7) + (lane >> 4) * 8) * Tr::pitch +
                                               (kk * 16 + ((lane >> 3) & 1) * 8) * 2));
        mma<bf16>(acc_s[0], qa[kk], kf[0], kf[1]);
        mma<bf16>(acc_s[1], qa[kk], kf[2], kf[3]);
      }
    }
#pragma unroll
    for (int nt = 0; nt < 2; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        float x = acc_s[nt][e];
        if (p.soft_cap > 0.0f) x = cap_log2 * fmha_tanh_approx(x * cap_arg);
        else x *= scale_log2;
        acc_s[nt][e] = x;
      }
    if (jw < warp_vis_lo || jw + 16 > warp_vis_hi) {  // warp-uniform: some key of the slice is masked for some row
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const int r = e >> 1, j = jw + nt * 8 + t4 * 2 + (e & 1);
          if (j < vis_lo[r] || j >= vis_hi[r]) acc_s[nt][e] = neg_inf;
        }
    }
    // Online softmax with a lazy maximum: a row's running maximum moves (and O and the sum
    // are rescaled) only when a tile's maximum exceeds it by more than 2^8 in the exp2
    // domain; otherwise P = exp2(s - stale maximum) <= 2^8, far inside fp32's and bf16's
    // range (their relative rounding is what it was), and the final normalization uses the
    // same maximum. Decode's loop is issue-bound, and
    // rescaling O's 64 accumulators on every tile was 7% of its instructions.
    constexpr float lazy_margin = 8.0f;
    float m[2];
    bool grow[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      m[r] = fmaxf(fmaxf(acc_s[0][2 * r], acc_s[0][2 * r + 1]), fmaxf(acc_s[1][2 * r], acc_s[1][2 * r + 1]));
      m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffffu, m[r], 1));
      m[r] = fmaxf(m[r], __shfl_xor_sync(0xffffffffu, m[r], 2));
      grow[r] = m[r] > row_max[r] + lazy_margin;  // row_max -inf: any visible key; m -inf: never
    }
    if (__any_sync(0xffffffffu, grow[0] || grow[1])) {
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        if (!grow[r]) continue;
        const float rescale = exp2_approx(row_max[r] - m[r]);  // row_max -inf: 0 (all still 0)
        row_max[r] = m[r];
        row_sum[r] *= rescale;
#pragma unroll
        for (int dt = 0; dt < D / 8; ++dt) {
          acc_o[dt][2 * r] *= rescale;
          acc_o[dt][2 * r + 1] *= rescale;
        }
      }
    }
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      const float base = row_max[r] == neg_inf ? 0.0f : row_max[r];  // nothing visible yet: everything stays 0
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          const float pv = exp2_approx(acc_s[nt][2 * r + c] - base);
          acc_s[nt][2 * r + c] = pv;
          sum += pv;
        }
      row_sum[r] += sum;
    }
    std::uint32_t pa[4];
    pa[0] = pack<bf16>(acc_s[0][0], acc_s[0][1]);
    pa[1] = pack<bf16>(acc_s[0][2], acc_s[0][3]);
    pa[2] = pack<bf16>(acc_s[1][0], acc_s[1][1]);
    pa[3] = pack<bf16>(acc_s[1][2], acc_s[1][3]);
    if constexpr (Tr::fp8) {
      // ldmatrix.trans of fp8 V read as 16-bit pairs: lane (g, t4) holds keys 2 t4 and 2 t4 + 1
      // at dims 2 g and 2 g + 1 of a 16-dim chunk c. Bytes (0, 2) are the B fragment of the
      // even dims, bytes (1, 3) of the odd ones: O's n-tile 2 c holds dims 16 c + 2 n,
      // n-tile 2 c + 1 dims 16 c + 2 n + 1 (o_column below).
#pragma unroll
      for (int cp = 0; cp < D / 32; ++cp) {  // matrices: keys 0-7 / 8-15 x dims 32 cp .. + 15 / + 16 .. + 31
        std::uint32_t vf[4];
        ldmatrix_x4_trans(vf, v_tile + std::uint32_t(((lane & 7) + ((lane >> 3) & 1) * 8) * Tr::cache_pitch + (2 * cp + (lane >> 4)) * 16));
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int c = 2 * cp + h;
          mma<bf16>(acc_o[2 * c], pa, widen_e4m3_pair<T, bytes_02>(vf[2 * h]), widen_e4m3_pair<T, bytes_02>(vf[2 * h + 1]));
          mma<bf16>(acc_o[2 * c + 1], pa, widen_e4m3_pair<T, bytes_13>(vf[2 * h]), widen_e4m3_pair<T, bytes_13>(vf[2 * h + 1]));
        }
      }
    } else {
#pragma unroll
      for (int dp = 0; dp < D / 16; ++dp) {
        std::uint32_t vf[4];
        ldmatrix_x4_trans(vf, v_tile + std::uint32_t(((lane & 7) + ((lane >> 3) & 1) * 8) * Tr::pitch +
                                                     (dp * 16 + (lane >> 4) * 8) * 2));
        mma<bf16>(acc_o[2 * dp], pa, vf[0], vf[1]);
        mma<bf16>(acc_o[2 * dp + 1], pa, vf[2], vf[3]);
      }
    }
  }

  // sm_90: the combine kernel (launched with programmatic stream serialization) may
  // start now; it waits in griddepcontrol.wait until this grid's writes are visible.
  decode_timeline(dk_split, dm_loop_done);
  if (p.part_o != nullptr) allow_dependent_launch();
  // Merge the warps' (max, sum, O) through shared memory (the ring is free now). The head-dim
  // column of O's accumulator element e of n-tile dt (an fp8 cache's n-tiles hold even or
  // odd dims, see its P V above):
  auto o_column = [&](int dt, int e) {
    const int n = t4 * 2 + (e & 1);
    return Tr::fp8 ? 16 * (dt >> 1) + 2 * n + (dt & 1) : dt * 8 + n;
  };
  cp_async_wait<0>();
  __syncthreads();
  float* red = reinterpret_cast<float*>(smem);              // [warps][16][D], swizzled (merge_at)
  float* red_m = red + Tr::warps * Tr::rows * D;            // [warps][16]
  float* red_l = red_m + Tr::warps * Tr::rows;
  // Column pairs of a merge row are XOR-swizzled by the row's low 3 bits: a warp's float2
  // stores (lane g, t4 at columns 8 dt + 2 t4 of row g) then fill every bank once per half
  // warp (2 wavefronts), where unswizzled rows of D floats put the 4 rows of a half warp on
  // the same bank pairs (8 wavefronts); reads of consecutive columns of one row stay
  // conflict-free (the swizzle permutes columns within 64-float blocks).
  static_assert(D >= 64, "the swizzle XORs column pairs with up to 28");
  auto merge_at = [](int row, int col) { return row * D + ((((col >> 1) ^ ((row & 7) << 2))) << 1) + (col & 1); };
  // The block's real query rows: the rest of the mma's 16 are padding (4 of 16 real for
  // 4 query heads per KV head at seqlen_q 1), neither stored nor merged.
  const int real_rows = min(Tr::rows, p.rows - rg * Tr::rows);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float l = row_sum[r];
    l += __shfl_xor_sync(0xffffffffu, l, 1);
    l += __shfl_xor_sync(0xffffffffu, l, 2);
    if (t4 == 0) {
      red_m[warp * Tr::rows + g + 8 * r] = row_max[r];
      red_l[warp * Tr::rows + g + 8 * r] = l;
    }
  }
  // O in pairs of adjacent columns (float2): elements e, e + 1 of an n-tile, or with an fp8
  // cache element e of n-tiles dt (even dims) and dt + 1 (odd dims).
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    if (8 * r >= real_rows) break;  // warp-uniform: rows g + 8 r are all padding
    const int row = warp * Tr::rows + g + 8 * r;
    if constexpr (Tr::fp8) {
#pragma unroll
      for (int dt = 0; dt < D / 8; dt += 2)
#pragma unroll
        for (int c = 0; c < 2; ++c)
          *reinterpret_cast<float2*>(red + merge_at(row, o_column(dt, 2 * r + c))) =
              make_float2(acc_o[dt][2 * r + c], acc_o[dt + 1][2 * r + c]);
    } else {
#pragma unroll
      for (int dt = 0; dt < D / 8; ++dt)
        *reinterpret_cast<float2*>(red + merge_at(row, o_column(dt, 2 * r))) = make_float2(acc_o[dt][2 * r], acc_o[dt][2 * r + 1]);
    }
  }
  __syncthreads();

  for (int idx = tid; idx < real_rows * D; idx += Tr::threads) {
    const int row = idx / D, col = idx % D, rgl = rg * Tr::rows + row;
    if (col >= p.hdim) continue;
    float m = neg_inf;
#pragma unroll
    for (int w = 0; w < Tr::warps; ++w) m = fmaxf(m, red_m[w * Tr::rows + row]);
    const float base = m == neg_inf ? 0.0f : m;
    float acc = 0.0f, l = 0.0f;
#pragma unroll
    for (int w = 0; w < Tr::warps; ++w) {
      const float f = exp2_approx(red_m[w * Tr::rows + row] - base);
      acc += f * red[merge_at(w * Tr::rows + row, col)] * v_scale;
      l += f * red_l[w * Tr::rows + row];
    }
    const int head = hk * p.group + rgl / sq, token = rgl % sq;
    const std::int64_t qrow = (std::int64_t(b) * p.heads_q + head) * sq + token;  // [batch, heads_q, seqlen_q]
    if (p.part_o != nullptr) {
      const std::int64_t prow = qrow * p.splits + split;
      p.part_o[prow * p.hdim + col] = l > 0.0f ? acc / l : 0.0f;
      if (col == 0) p.part_lse[prow] = l > 0.0f ? (m + log2f(l)) * ln2 : neg_inf;
    } else {
      if (p.sinks != nullptr) {  // the sink joins the denominator
        const float sk = p.sinks[head] * log2e, m2 = fmaxf(m, sk);
        const float f = exp2_approx(m - m2);  // m = -inf: 0
        acc *= f;
        l = l * f + exp2_approx(sk - m2);
        m = m2;
      }
      T* o = static_cast<T*>(p.o) + b * p.o_batch + token * p.o_seq + head * p.o_head;
      o[col] = from_float<T>(l > 0.0f ? acc / l : 0.0f);
      if (p.lse != nullptr && col == 0) p.lse[qrow] = l > 0.0f ? (m + log2f(l)) * ln2 : neg_inf;
    }
  }
  decode_timeline(dk_split, dm_exit);
}

struct combine_params {
  const float* part_o;
  const float* part_lse;
  const float* sinks;
  void* o;
  float* lse;
  std::int64_t o_batch, o_seq, o_head;
  int batch, heads_q, seqlen_q, hdim, splits;
};

// One block of 4 warps per query row. Every warp finds M = the largest split LSE (and the
// sink) and the sum of the weights exp(lse_i - M) itself; warp w then adds up splits
// w, w + 4, ... with each lane holding 4 columns (16-byte loads of the partial rows, 8
// splits in flight per warp, so 32 splits cost one L2 round trip), and the 4 warps' sums
// meet in shared memory.
inline constexpr int combine_warps = 4;
inline constexpr int combine_round = 8;  // splits a combine warp has in flight
template <class T>
__global__ void __launch_bounds__(combine_warps * 32) paged_combine_kernel(const combine_params p) {
  constexpr int warps = combine_warps, max_quads = 256 / 4;  // head dims up to 256: 2 quads per lane
  constexpr float neg_inf = -std::numeric_limits<float>::infinity();
  __shared__ float4 partial[warps][max_quads];
  __shared__ float4 staged[warps][combine_round][max_quads];  // each warp's round of splits' partial rows (32 KB)
  decode_timeline(dk_combine, dm_entry);
  wait_for_prerequisite_grids();  // the split kernel's partial results are visible
  decode_timeline(dk_combine, dm_first_tile);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const std::int64_t row = blockIdx.x;  // [batch, heads_q, seqlen_q]
  const int token = int(row % p.seqlen_q), head = int(row / p.seqlen_q % p.heads_q), b = int(row / p.seqlen_q / p.heads_q);
  const int quads = p.hdim / 4;  // head dims are multiples of 8
  const float4* part = reinterpret_cast<const float4*>(p.part_o + row * p.splits * p.hdim);
  // Rounds of 8 of this warp's splits, copied with cp.async into shared memory before any is
  // read, so that a round costs one L2 round trip. (Loads into registers did not: ptxas
  // interleaved them with their uses, reusing two registers, and each split waited on its own
  // round trip: 7.7 us for 32 splits at batch 1.) A split past the end is zero-filled and
  // weighs 0. The first round is copied before the LSEs are read: its L2 round trip overlaps
  // theirs (the partial rows do not depend on them).
  constexpr int round = combine_round;
  const std::uint32_t my_stage = sm80::smem_address(&staged[warp][0][0]);
  auto copy_round = [&](int i0) {
#pragma unroll
    for (int u = 0; u < round; ++u) {
      const int i = i0 + u * warps;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int q = lane + 32 * h;
        const bool in = i < p.splits && q < quads;
        sm80::cp_async<16>(my_stage + std::uint32_t((u * max_quads + q) * 16),
                           in ? static_cast<const void*>(part + std::int64_t(i) * quads + q) : part, in ? 16 : 0);
      }
    }
    sm80::cp_async_commit();
  };
  copy_round(warp);
  const float* lse = p.part_lse + row * p.splits;
  float m = neg_inf;
  for (int i = lane; i < p.splits; i += 32) m = fmaxf(m, lse[i]);
#pragma unroll
  for (int x = 16; x > 0; x >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, x));
  const float sink = p.sinks != nullptr ? p.sinks[head] : neg_inf;
  m = fmaxf(m, sink);
  T* o = static_cast<T*>(p.o) + b * p.o_batch + token * p.o_seq + head * p.o_head;
  if (m == neg_inf) {  // no key and no sink: zeros, LSE -inf
    sm80::cp_async_wait<0>();
    for (int c = threadIdx.x; c < p.hdim; c += warps * 32) o[c] = from_float<T>(0.0f);
    if (p.lse != nullptr && threadIdx.x == 0) p.lse[row] = neg_inf;
    return;
  }
  float sum = 0.0f;
  for (int i = lane; i < p.splits; i += 32) sum += __expf(lse[i] - m);  // -inf: 0
#pragma unroll
  for (int x = 16; x > 0; x >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, x);
  if (p.sinks != nullptr) sum += __expf(sink - m);

  float4 acc[2] = {make_float4(0.f, 0.f, 0.f, 0.f), make_float4(0.f, 0.f, 0.f, 0.f)};
  for (int i0 = warp; i0 < p.splits; i0 += warps * round) {
    if (i0 != warp) copy_round(i0);
    sm80::cp_async_wait<0>();
    __syncwarp();
#pragma unroll
    for (int u = 0; u < round; ++u) {
      const int i = i0 + u * warps;
      const float wu = i < p.splits ? __expf(lse[i] - m) : 0.0f;  // -inf: 0
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const float4 v = staged[warp][u][lane + 32 * h];
        acc[h].x += wu * v.x;
        acc[h].y += wu * v.y;
        acc[h].z += wu * v.z;
        acc[h].w += wu * v.w;
      }
    }
    __syncwarp();  // the round's staged rows are read before the next round's copies land
  }
  sm80::cp_async_wait<0>();  // a warp past the last split has its first (empty) round still pending
  decode_timeline(dk_combine, dm_loop_done);
#pragma unroll
  for (int h = 0; h < 2; ++h)
    if (lane + 32 * h < quads) partial[warp][lane + 32 * h] = acc[h];
  __syncthreads();
  const float inv = 1.0f / sum;
  for (int q = threadIdx.x; q < quads; q += warps * 32) {
    float4 t = partial[0][q];
#pragma unroll
    for (int w = 1; w < warps; ++w) {
      const float4 v = partial[w][q];
      t.x += v.x;
      t.y += v.y;
      t.z += v.z;
      t.w += v.w;
    }
    o[4 * q] = from_float<T>(t.x * inv);
    o[4 * q + 1] = from_float<T>(t.y * inv);
    o[4 * q + 2] = from_float<T>(t.z * inv);
    o[4 * q + 3] = from_float<T>(t.w * inv);
  }
  if (p.lse != nullptr && threadIdx.x == 0) p.lse[row] = m + logf(sum);
  decode_timeline(dk_combine, dm_exit);
}

// ---------------------------------------------------------------------------
// Host side: the plan (one stage or split, how many splits) and the launches.

// Calls fn.template operator()<T, Cache, D>() for the problem's kernel (a template lambda).
template <class Fn>
inline auto visit_decode_kernel(const fmha_paged_problem& p, Fn&& fn) {
  const int d = decode_padded_hdim(p.hdim);
  auto by_dim = [&]<class T, class Cache>() {
    if (d == 64) return fn.template operator()<T, Cache, 64>();
    if (d == 128) return fn.template operator()<T, Cache, 128>();
    return fn.template operator()<T, Cache, 256>();
  };
  if (p.qkv == dtype::bf16)
    return p.fp8_cache() ? by_dim.template operator()<__nv_bfloat16, __nv_fp8_e4m3>()
                         : by_dim.template operator()<__nv_bfloat16, __nv_bfloat16>();
  return p.fp8_cache() ? by_dim.template operator()<__half, __nv_fp8_e4m3>() : by_dim.template operator()<__half, __half>();
}

template <class T, class Cache, int D, int Stages = decode_default_stages(D, sizeof(Cache) == 1)>
inline status launch_paged_decode(const fmha_paged_problem& p, const fmha_paged_args& a, const decode_plan& plan,
                                  cudaStream_t stream) {
  using Tr = decode_traits<T, Cache, D, Stages>;
  auto kernel = paged_decode_kernel<T, Cache, D, Stages>;
  if (Tr::smem_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::smem_bytes);
    if (e != cudaSuccess) return status::error(std::string("paged decode: cudaFuncSetAttribute: ") + cudaGetErrorString(e));
  }
  decode_params kp{};
  kp.q = a.q;
  kp.o = a.o;
  kp.lse = p.lse ? a.lse : nullptr;
  kp.k_cache = a.k_cache;
  kp.v_cache = a.v_cache;
  kp.block_table = a.block_table;
  kp.page_list = p.table == page_table_kind::page_list ? a.page_list : nullptr;
  kp.page_offsets = a.page_offsets;
  kp.seqlens_kv = a.seqlens_kv;
  kp.sinks = p.sinks ? a.sinks : nullptr;
  kp.k_scale = a.k_scale;
  kp.v_scale = a.v_scale;
  kp.scale_stride = p.kv_scale_per_head ? 1 : 0;
  kp.table_stride = p.table_stride;
  kp.q_batch = p.q_strides.batch; kp.q_seq = p.q_strides.seq; kp.q_head = p.q_strides.head;
  kp.o_batch = p.o_strides.batch; kp.o_seq = p.o_strides.seq; kp.o_head = p.o_strides.head;
  kp.k_page = p.k_strides.page; kp.k_row = p.k_strides.row; kp.k_head = p.k_strides.head;
  kp.v_page = p.v_strides.page; kp.v_row = p.v_strides.row; kp.v_head = p.v_strides.head;
  kp.seqlen_q = int(p.seqlen_q);
  kp.heads_q = int(p.heads_q);
  kp.hdim = int(p.hdim);
  kp.group = int(p.group());
  kp.rows = int(p.group() * p.seqlen_q);
  kp.row_groups = plan.row_groups;
  kp.page_shift = p.page_shift();
  kp.splits = plan.splits;
  set_fmha_mask_and_scales(kp, p);
  if (plan.splits > 1) {
    kp.part_o = static_cast<float*>(a.workspace);
    kp.part_lse = kp.part_o + std::size_t(p.batch * p.heads_q * p.seqlen_q) * std::size_t(plan.splits) * std::size_t(p.hdim);
  }
  const dim3 grid(unsigned(plan.splits), unsigned(p.heads_kv * plan.row_groups), unsigned(p.batch));
  kernel<<<grid, Tr::threads, Tr::smem_bytes, stream>>>(kp);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("paged decode launch: ") + cudaGetErrorString(e));
  if (plan.splits > 1) {
    combine_params cp{};
    cp.part_o = kp.part_o;
    cp.part_lse = kp.part_lse;
    cp.sinks = kp.sinks;
    cp.o = a.o;
    cp.lse = kp.lse;
    cp.o_batch = kp.o_batch; cp.o_seq = kp.o_seq; cp.o_head = kp.o_head;
    cp.batch = int(p.batch);
    cp.heads_q = int(p.heads_q);
    cp.seqlen_q = int(p.seqlen_q);
    cp.hdim = int(p.hdim);
    cp.splits = plan.splits;
    const std::int64_t rows = p.batch * p.heads_q * p.seqlen_q;
    // On sm_90 the combine is launched as a programmatic dependent of the split kernel, so
    // that its launch overlaps the split kernel's tail (griddepcontrol in both kernels).
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(rows));  // one block per query row (rows <= batch 65535 x 8192 heads x seqlen_q)
    cfg.blockDim = dim3(combine_warps * 32);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = stream;
    cudaLaunchAttribute attr{};
    cfg.numAttrs = dependent_launch_attribute(attr);
    cfg.attrs = &attr;
    e = cudaLaunchKernelEx(&cfg, paged_combine_kernel<T>, cp);
    if (e == cudaSuccess) e = cudaGetLastError();
    if (e != cudaSuccess) return status::error(std::string("paged decode combine launch: ") + cudaGetErrorString(e));
  }
  return status::ok();
}

// Why the decode kernel cannot take a (normalized, valid) problem with these pointers, whatever
// the plan (the registry's check, before a workspace is lent), or empty.
inline std::optional<std::string> paged_decode_launch_reason(const fmha_paged_problem& p, const fmha_paged_args& a) {
  if (p.family == fmha_family::fwd_appendkv) return "fwd_appendkv problems run through paged_append, not decode";
  if (p.batch > 65535) return "batch = " + std::to_string(p.batch) + ": the decode grid takes at most 65535 sequences";
  const std::int64_t row_groups = (p.group() * p.seqlen_q + 15) / 16;  // as plan_paged_decode
  if (p.heads_kv * row_groups > 65535)
    return "heads_kv x row groups = " + std::to_string(p.heads_kv * row_groups) + " exceeds the grid's 65535";
  if (auto why = kernels::detail::paged_pointers_missing(p, a)) return why;
  auto misaligned = [](const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) % 16) != 0; };
  if (misaligned(a.q) || misaligned(a.k_cache) || misaligned(a.v_cache))
    return "Q and the caches must be 16-byte aligned (16-byte loads)";
  return std::nullopt;
}

// As paged_decode_launch_reason, and the plan's split-KV workspace must be lent.
inline std::optional<std::string> paged_decode_args_reason(const fmha_paged_problem& p, const fmha_paged_args& a,
                                                           const decode_plan& plan) {
  if (auto why = paged_decode_launch_reason(p, a)) return why;
  if (plan.workspace_bytes > 0 && (!a.workspace || a.workspace_bytes < plan.workspace_bytes))
    return "split-KV with " + std::to_string(plan.splits) + " splits needs " + std::to_string(plan.workspace_bytes) +
           " bytes of workspace, " + std::to_string(a.workspace_bytes) + " given";
  if (plan.workspace_bytes > 0 && reinterpret_cast<std::uintptr_t>(a.workspace) % 16 != 0)
    return "the split-KV workspace must be 16-byte aligned (the combine's 16-byte loads)";
  return std::nullopt;
}

// Decode blocks one SM runs at once of one decode kernel on the current device.
template <class T, class Cache, int D, int Stages = decode_default_stages(D, sizeof(Cache) == 1)>
inline int decode_blocks_per_sm() {
  using Tr = decode_traits<T, Cache, D, Stages>;
  int per_sm = 1;
  auto kernel = paged_decode_kernel<T, Cache, D, Stages>;
  cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::smem_bytes);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, Tr::threads, Tr::smem_bytes);
  return std::max(1, per_sm);
}

}  // namespace kdecl::kernels::cuda::decode
