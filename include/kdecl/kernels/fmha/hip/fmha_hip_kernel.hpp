// The HIP/MFMA attention kernel (FlashAttention-2 structure, CK's qr pipeline: Q in
// registers, K and V through LDS) for gfx90a and gfx942: the work of one block
// (fmha_hip_attend) and the forward pass's __global__ entry (fmha_hip_kernel); the
// serving families' entries (paged K/V, split-KV) are fmha_hip_paged_kernel.hpp.
// Compiled for gfx90a and gfx940 code objects, never run: no AMD GPU is available
// to this project. Correctness rests on the MFMA register layouts (mfma_table.hpp,
// fmha_hip_layout.hpp, checked on the host), the row and key addressing
// (fmha_hip_rows.hpp, fmha_hip_band.hpp, walked on the host) and on reading; the
// first run on real hardware is its first test.
//
// A block takes m0 query rows (fmha_query_rows: tokens of one head, or, for decode,
// the query heads of one KV head packed with the tokens); its waves split the rows,
// rep_m MFMA tiles of mn rows each. Q is loaded once into registers as MFMA
// fragments. Per key block of n0 keys (those the mask band leaves within the block's
// key span):
//  * S^T = K Q^T: K streams through LDS in slices of k0 dims (zero-filled past the
//    keys and the head dim); a lane's output column is one query row.
//  * logits (score_mod.hpp: scale, soft-cap, ALiBi or bias) in the log2 domain;
//    the mask per element only on blocks that cross the band or the span's ends;
//  * online softmax in fp32 registers (running max and sum per row, exp2; the row
//    reductions are over the 64 / mn lanes of a column);
//  * P converted to 16 bits in registers: the S^T accumulators are the B operands
//    of O^T = V^T P^T (fmha_layout::pv_key), V streams through LDS transposed in
//    slices of k1 keys.
// At the end O is divided by the row sum and stored with 8-byte writes, and the LSE
// on request; or, for a split-KV share, the normalized O in fp32 and the natural LSE
// go to the partial results the combine merges (no sink there: the combine adds it).
// Rows that see no key write O = 0 and LSE = -inf (with a sink: the sink).
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_band.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_geometry.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_layout.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_params.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_rows.hpp"
#include "kdecl/kernels/fmha/score_mod.hpp"
#include "kdecl/kernels/hip/hip_arch.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"
#include "kdecl/kernels/hip/mfma.hpp"
#include "kdecl/kernels/hip/raw_bytes.hpp"

namespace kdecl::kernels::hip {

// The key a kernel is compiled for: only what changes the code. Keys that differ in
// the mask kind (top-left, bottom-right, window), the mode, the LSE or the paddings
// share one kernel (those are run-time parameters, and the kernel always checks bounds).
constexpr fmha_key fmha_hip_code_key(fmha_key k) {
  k.sig.mask = k.sig.mask == fmha_mask::none ? fmha_mask::none : fmha_mask::generic;
  k.sig.mode = fmha_mode::batch;
  k.sig.lse = true;
  k.algo.pad_s = k.algo.pad_sk = k.algo.pad_d = k.algo.pad_dv = tristate::yes;
  k.algo.block_per_cu = -1;
  // One-stage and split-KV decode are one kernel (a split count of 1 is the one stage).
  if (k.sig.family == fmha_family::fwd_pagedkv) k.sig.family = fmha_family::fwd_splitkv;
  return k;
}

namespace fmha_detail {

inline constexpr float ln2 = 0.6931471805599453f;

// MFMA operand j (elements 4j .. 4j + 3) of a 16-byte fragment of 16-bit values.
template <class Operand>
__device__ inline Operand operand_of(const raw_bytes<16>& f, int j) {
  using pair_t = std::uint32_t __attribute__((ext_vector_type(2)));
  const pair_t w = {f.words[2 * j], f.words[2 * j + 1]};
  return __builtin_bit_cast(Operand, w);
}

// Four fp32 values -> one 8-byte MFMA operand (or O store) of dtype D.
template <dtype D>
__device__ inline raw_bytes<8> pack4(float a, float b, float c, float d) {
  raw_bytes<8> r;
  r.set(0, from_epilogue<D, float>(a));
  r.set(1, from_epilogue<D, float>(b));
  r.set(2, from_epilogue<D, float>(c));
  r.set(3, from_epilogue<D, float>(d));
  return r;
}

struct tanh_fn {
  __device__ float operator()(float x) const { return tanhf(x); }
};

// Keys j0 .. j0 + keys_valid - 1 (their rows at src + rows.at(j)) x dims d0 .. d0 + Dims - 1
// into an LDS tile of Keys rows at Pitch bytes; past the keys or the head dim: zeros.
template <int Keys, int Dims, int Pitch, int Threads, class T, class KvRows>
__device__ inline void rows_to_lds(unsigned char* dst, const T* src, const KvRows& rows, int j0, int keys_valid, int d0,
                                   int dims_valid, int tid) {
  constexpr int chunks = Dims / 8, total = Keys * chunks, iters = (total + Threads - 1) / Threads;
#pragma unroll
  for (int it = 0; it < iters; ++it) {
    const int c = tid + it * Threads;
    if (total % Threads != 0 && c >= total) break;
    const int r = c / chunks, d = d0 + (c % chunks) * 8;
    const raw_bytes<16> x =
        r < keys_valid && d < dims_valid ? load_bytes<16>(src + rows.at(j0 + r) + d) : zero_bytes<16>();
    store_bytes<16>(dst + r * Pitch + (c % chunks) * 16, x);
  }
}

// Keys j0 .. j0 + keys_valid - 1 x dims_valid of V into LDS transposed: row n holds dim n
// of Keys keys, `Pitch` bytes apart, so that a lane reads 4 consecutive keys of one dim
// (its MFMA A operand of V^T) with one 8-byte access.
template <int Keys, int Dims, int Pitch, int Threads, class T, class KvRows>
__device__ inline void rows_to_lds_transposed(unsigned char* dst, const T* src, const KvRows& rows, int j0,
                                              int keys_valid, int dims_valid, int tid) {
  constexpr int chunks = Dims / 8, total = Keys * chunks, iters = (total + Threads - 1) / Threads;
#pragma unroll
  for (int it = 0; it < iters; ++it) {
    const int c = tid + it * Threads;
    if (total % Threads != 0 && c >= total) break;
    const int key = c / chunks, d = (c % chunks) * 8;
    const raw_bytes<16> x =
        key < keys_valid && d < dims_valid ? load_bytes<16>(src + rows.at(j0 + key) + d) : zero_bytes<16>();
#pragma unroll
    for (int e = 0; e < 8; ++e)
      *reinterpret_cast<std::uint16_t*>(dst + (d + e) * Pitch + key * 2) = x.template get<std::uint16_t>(e);
  }
}

}  // namespace fmha_detail

// What one block attends and where its results go (pointers of the block's sequence;
// strides in elements).
template <class T, class KvRows>
struct fmha_hip_block {
  const T* q;                       // row r's query at q + token(r) * q_seq + head(r) * q_head
  std::int64_t q_seq, q_head;
  fmha_query_rows rows;
  int row_count;                    // valid rows of this block
  const T* k;                       // key j's K row at k + k_rows.at(j) (the KV head's slice)
  const T* v;
  KvRows k_rows, v_rows;
  int hdim_q, hdim_v;               // the problem's (at most the kernel's padded ones)
  fmha_band band;                   // mask, over token indices
  fmha_key_span keys;               // the keys the block may see (its sequence, or a split's share)
  fmha_score_mod mod;
  const T* bias;                    // elementwise bias of the block's head: bias + token * bias_seq + j
  const float* sinks;               // per query head; null: none (split-KV partials never take it)
  // Final results: O (T) at o + token * o_seq + head * o_head; the LSE at lse + head * lse_head + token.
  T* o;
  std::int64_t o_seq, o_head;
  float* lse;                       // null: not written
  std::int64_t lse_head;
  // Split-KV partial results instead (part_o not null): normalized fp32 O at
  // part_o + token * part_seq + head * part_head, the natural LSE at
  // part_lse + token * part_lse_seq + head * part_lse_head (no sink: the combine adds it).
  float* part_o;
  float* part_lse;
  std::int64_t part_seq, part_head, part_lse_seq, part_lse_head;
};

// The block's work (every lane of the block calls it, after the same early returns), in the
// kernel's LDS of fmha_geometry_of(C).lds_bytes (declared by the __global__ entry: an LDS
// variable of a device function that is not inlined is allocated for every kernel of the
// module at -O0).
template <fmha_key C, class T, class KvRows>
__device__ __forceinline__ void fmha_hip_attend(const fmha_hip_block<T, KvRows>& bk, unsigned char* lds) {
  using namespace fmha_detail;
  constexpr fmha_hip_geometry G = fmha_geometry_of(C);
  constexpr int MN = G.mn, RM = G.rep_m, NT = G.n_tiles, OT = G.o_tiles, ACC = G.acc, PVT = G.pv_per_tile;
  constexpr dtype D = C.sig.qkv;
  constexpr fmha_bias Bias = C.sig.bias;
  using mfma = mfma_op<D, C.algo.arch, MN>;
  using acc_t = typename mfma::acc_t;
  using operand_t = typename mfma::operand_t;
  constexpr float neg_inf = -__builtin_huge_valf();
  unsigned char* const k_lds = lds;
  unsigned char* const v_lds = lds + G.k_bytes;

  const int tid = int(threadIdx.x), lane = tid % fmha_wave;
  const int wave = __builtin_amdgcn_readfirstlane(tid / fmha_wave);
  const int g = lane / MN;  // lane group
  const int rows = bk.row_count;
  const int t_first = bk.rows.token(0), t_count = bk.rows.token(rows - 1) - t_first + 1;  // the block's tokens
  const fmha_key_blocks blocks = fmha_blocks_of(bk.band, t_first, t_count, bk.keys, G.n0);
  const int wave_row = wave * G.rows_per_wave;  // this wave's first row within the block
  const bool partial = bk.part_o != nullptr;
  const bool has_sink = C.sig.sink && bk.sinks != nullptr && !partial;
  const bool soft_capped = bk.mod.soft_cap > 0.0f;

  // Q as MFMA B fragments (qr: Q stays in registers), zero past the rows and the head dim.
  raw_bytes<16> qf[RM][G.pairs];
#pragma unroll
  for (int r = 0; r < RM; ++r)
#pragma unroll
    for (int pp = 0; pp < G.pairs; ++pp) {
      const int row = wave_row + r * MN + fmha_layout::query_of(lane, MN);
      const int d = fmha_layout::qk_dim(pp, 0, lane, MN);
      qf[r][pp] = row < rows && d < bk.hdim_q
                      ? load_bytes<16>(bk.q + bk.rows.token(row) * bk.q_seq + bk.rows.head(row) * bk.q_head + d)
                      : zero_bytes<16>();
    }

  acc_t o[RM][OT];
  float row_max[RM], row_sum[RM];
#pragma unroll
  for (int r = 0; r < RM; ++r) {
#pragma unroll
    for (int ot = 0; ot < OT; ++ot) o[r][ot] = acc_t(0.0f);
    const int row = wave_row + r * MN + fmha_layout::query_of(lane, MN);
    row_max[r] = has_sink && row < rows ? bk.sinks[bk.rows.head(row)] * fmha_log2e : neg_inf;
    // Row sums are partials per lane group, reduced at the end: one group holds the sink's 1.
    row_sum[r] = row_max[r] != neg_inf && g == 0 ? 1.0f : 0.0f;
  }

  for (int t = 0; t < blocks.count; ++t) {
    const int j0 = (blocks.begin + t) * G.n0;
    const int keys = min(G.n0, bk.keys.end - j0);  // j0 >= keys.begin - n0 + 1: a partial first block is masked

    // S^T = K Q^T over the head dim in k0 slices of K through LDS.
    acc_t s[RM][NT];
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) s[r][nt] = acc_t(0.0f);
#pragma unroll
    for (int ks = 0; ks < G.k_slices; ++ks) {
      __syncthreads();  // every wave is done reading the previous slice
      rows_to_lds<G.n0, G.k0, G.k_pitch, G.threads>(k_lds, bk.k, bk.k_rows, j0, keys, ks * G.k0, bk.hdim_q, tid);
      __syncthreads();
#pragma unroll
      for (int pp = 0; pp < G.pairs_per_slice; ++pp)
#pragma unroll
        for (int nt = 0; nt < NT; ++nt) {
          const raw_bytes<16> kf = load_bytes<16>(k_lds + (nt * MN + fmha_layout::query_of(lane, MN)) * G.k_pitch +
                                                  fmha_layout::qk_dim(pp, 0, lane, MN) * 2);
#pragma unroll
          for (int r = 0; r < RM; ++r) {
            const raw_bytes<16>& qq = qf[r][ks * G.pairs_per_slice + pp];
            s[r][nt] = mfma::run(operand_of<operand_t>(kf, 0), operand_of<operand_t>(qq, 0), s[r][nt]);
            s[r][nt] = mfma::run(operand_of<operand_t>(kf, 1), operand_of<operand_t>(qq, 1), s[r][nt]);
          }
        }
    }

    // Logits in the log2 domain; masked out (and keys outside the span) -inf.
    const bool edge = fmha_block_is_edge(bk.band, t_first, t_count, j0, G.n0, bk.keys);
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      const int row = wave_row + r * MN + fmha_layout::query_of(lane, MN);
      const int i = bk.rows.token(row);
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int vv = 0; vv < ACC; ++vv) {
          const int j = j0 + nt * MN + fmha_layout::s_key(vv, lane, MN);
          float bias_value = 0.0f;
          if constexpr (Bias == fmha_bias::elementwise)
            if (row < rows && j < bk.keys.end) bias_value = to_epilogue<D, float>(bk.bias[std::int64_t(i) * bk.mod.bias_seq + j]);
          // A soft-capping kernel also serves problems without a cap (soft_cap 0).
          float x = C.sig.logits_soft_cap && soft_capped
                        ? fmha_logit_log2<true, Bias>(s[r][nt][vv], bk.mod, tanh_fn{}, bias_value, i, j, bk.band.offset)
                        : fmha_logit_log2<false, Bias>(s[r][nt][vv], bk.mod, tanh_fn{}, bias_value, i, j, bk.band.offset);
          if (edge && !fmha_visible(bk.band, i, j, bk.keys)) x = neg_inf;
          s[r][nt][vv] = x;
        }
    }

    // Online softmax: new row maxima (over the lane groups of a column), P = 2^(x - max),
    // rescaled sums and O.
#pragma unroll
    for (int r = 0; r < RM; ++r) {
      float block_max = neg_inf;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int vv = 0; vv < ACC; ++vv) block_max = fmaxf(block_max, s[r][nt][vv]);
#pragma unroll
      for (int off = MN; off < fmha_wave; off *= 2) block_max = fmaxf(block_max, __shfl_xor(block_max, off));
      const float m_new = fmaxf(row_max[r], block_max);
      const float base = m_new == neg_inf ? 0.0f : m_new;  // nothing visible yet: everything stays 0
      const float rescale = exp2f(row_max[r] - base);
      row_max[r] = m_new;
      float sum = 0.0f;
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int vv = 0; vv < ACC; ++vv) {
          const float pv = exp2f(s[r][nt][vv] - base);
          s[r][nt][vv] = pv;
          sum += pv;
        }
      row_sum[r] = row_sum[r] * rescale + sum;
#pragma unroll
      for (int ot = 0; ot < OT; ++ot) o[r][ot] *= rescale;
    }

    // P^T operands in 16 bits: P V instruction pq of tile nt takes accumulators 4pq .. 4pq + 3.
    operand_t pf[RM][NT][PVT];
#pragma unroll
    for (int r = 0; r < RM; ++r)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt)
#pragma unroll
        for (int pq = 0; pq < PVT; ++pq)
          pf[r][nt][pq] = __builtin_bit_cast(operand_t, pack4<D>(s[r][nt][4 * pq], s[r][nt][4 * pq + 1],
                                                                s[r][nt][4 * pq + 2], s[r][nt][4 * pq + 3]).words);

    // O^T += V^T P^T over the block's keys in k1 slices of V^T through LDS.
#pragma unroll
    for (int vs = 0; vs < G.v_slices; ++vs) {
      __syncthreads();
      rows_to_lds_transposed<G.k1, G.n1, G.v_pitch, G.threads>(v_lds, bk.v, bk.v_rows, j0 + vs * G.k1,
                                                               keys - vs * G.k1, bk.hdim_v, tid);
      __syncthreads();
      constexpr int per_slice = G.k1 / G.k_instr;
#pragma unroll
      for (int u = 0; u < per_slice; ++u) {
        const int pv = vs * per_slice + u;  // P V instruction within the block
        if (pv * G.k_instr >= G.n0) break;  // the last slice may be shorter (compile-time after unrolling)
        const int nt = pv / PVT, pq = pv % PVT;
#pragma unroll
        for (int ot = 0; ot < OT; ++ot) {
          const operand_t vf = __builtin_bit_cast(
              operand_t, load_bytes<8>(v_lds + (ot * MN + fmha_layout::query_of(lane, MN)) * G.v_pitch +
                                       fmha_layout::pv_key(u, 0, lane, MN, G.k_instr) * 2).words);
#pragma unroll
          for (int r = 0; r < RM; ++r) o[r][ot] = mfma::run(vf, pf[r][nt][pq], o[r][ot]);
        }
      }
    }
  }

  // Epilogue: O / row sum, 4 consecutive dims per store; the LSE (natural log).
#pragma unroll
  for (int r = 0; r < RM; ++r) {
    float l = row_sum[r];
#pragma unroll
    for (int off = MN; off < fmha_wave; off *= 2) l += __shfl_xor(l, off);
    const float inv = l > 0.0f ? 1.0f / l : 0.0f;  // a row that saw nothing writes zeros
    const int row = wave_row + r * MN + fmha_layout::query_of(lane, MN);
    if (row >= rows) continue;
    const int token = bk.rows.token(row), head = bk.rows.head(row);
    const float lse = l > 0.0f ? (row_max[r] + log2f(l)) * ln2 : neg_inf;
    if (partial) {
      float* out = bk.part_o + token * bk.part_seq + head * bk.part_head;
#pragma unroll
      for (int ot = 0; ot < OT; ++ot)
#pragma unroll
        for (int c = 0; c < ACC / 4; ++c) {
          const int n = ot * MN + fmha_layout::o_dim(4 * c, lane, MN);
          if (n < bk.hdim_v) {
            raw_bytes<16> w;
#pragma unroll
            for (int e = 0; e < 4; ++e) w.words[e] = __builtin_bit_cast(std::uint32_t, o[r][ot][4 * c + e] * inv);
            store_bytes<16>(out + n, w);
          }
        }
      if (g == 0) bk.part_lse[token * bk.part_lse_seq + head * bk.part_lse_head] = lse;
      continue;
    }
    T* out = bk.o + token * bk.o_seq + head * bk.o_head;
#pragma unroll
    for (int ot = 0; ot < OT; ++ot)
#pragma unroll
      for (int c = 0; c < ACC / 4; ++c) {
        const int n = ot * MN + fmha_layout::o_dim(4 * c, lane, MN);
        if (n < bk.hdim_v)
          store_bytes<8>(out + n, pack4<D>(o[r][ot][4 * c] * inv, o[r][ot][4 * c + 1] * inv, o[r][ot][4 * c + 2] * inv,
                                           o[r][ot][4 * c + 3] * inv));
      }
    if (bk.lse != nullptr && g == 0) bk.lse[head * bk.lse_head + token] = lse;
  }
}

template <fmha_key C>
__global__ void __launch_bounds__(fmha_geometry_of(C).threads) fmha_hip_kernel(const fmha_hip_params p) {
  if constexpr (compiling_for == C.algo.arch) {
    constexpr fmha_hip_geometry G = fmha_geometry_of(C);
    using T = storage_t<C.sig.qkv>;
    const int m_block = int(gridDim.x) - 1 - int(blockIdx.x);  // the longest causal blocks start first
    const int h = int(blockIdx.y), b = int(blockIdx.z);

    int sq = p.seqlen_q, skv = p.seqlen_kv;
    std::int64_t q_row0 = 0, kv_row0 = 0, batch = b;
    if (p.cu_q != nullptr) {
      q_row0 = p.cu_q[b];
      sq = p.cu_q[b + 1] - int(q_row0);
      kv_row0 = p.cu_kv[b];
      skv = p.cu_kv[b + 1] - int(kv_row0);
      batch = 0;
    }
    const int m0 = m_block * G.m0;
    if (m0 >= sq) return;  // uniform over the block: before any barrier
    const int hk = h / p.group;  // GQA / MQA: the K/V head of this query head

    fmha_hip_block<T, contiguous_kv_rows> bk{};
    bk.q = static_cast<const T*>(p.q) + batch * p.q_batch + q_row0 * p.q_seq;
    bk.q_seq = p.q_seq;
    bk.q_head = p.q_head;
    bk.rows = {m0, 1, h};
    bk.row_count = min(G.m0, sq - m0);
    bk.k = static_cast<const T*>(p.k) + batch * p.k_batch + kv_row0 * p.k_seq + hk * p.k_head;
    bk.v = static_cast<const T*>(p.v) + batch * p.v_batch + kv_row0 * p.v_seq + hk * p.v_head;
    bk.k_rows = {p.k_seq};
    bk.v_rows = {p.v_seq};
    bk.hdim_q = p.hdim_q;
    bk.hdim_v = p.hdim_v;
    bk.band = {C.sig.mask != fmha_mask::none, p.top_left ? 0 : skv - sq, p.window_left, p.window_right};
    bk.keys = {0, skv};
    float slope = 0.0f;
    if constexpr (C.sig.bias == fmha_bias::alibi) slope = p.alibi_slopes[b * p.alibi_batch_stride + h];
    if constexpr (C.sig.bias == fmha_bias::elementwise)
      bk.bias = static_cast<const T*>(p.bias) + b * p.bias_batch + h * p.bias_head;
    bk.mod = {p.scale, p.scale_log2, p.soft_cap, p.inv_soft_cap, slope, p.bias_seq};
    bk.sinks = C.sig.sink ? p.sinks : nullptr;
    bk.o = static_cast<T*>(p.o) + batch * p.o_batch + q_row0 * p.o_seq;
    bk.o_seq = p.o_seq;
    bk.o_head = p.o_head;
    bk.lse = p.lse != nullptr ? p.lse + batch * p.lse_batch + q_row0 : nullptr;
    bk.lse_head = p.lse_head;
    __shared__ __attribute__((aligned(16))) unsigned char lds[G.lds_bytes];
    fmha_hip_attend<C>(bk, lds);
  } else {
    // Code object of another arch: run() checks the device arch first, so this never executes.
    __builtin_trap();
  }
}

}  // namespace kdecl::kernels::hip
