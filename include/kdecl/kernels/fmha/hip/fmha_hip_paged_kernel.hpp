// The serving families' __global__ entries of the HIP/MFMA attention kernel (gfx90a and
// gfx942), over a paged KV cache (kdecl/fmha/paged_kv.hpp):
//  * fmha_hip_decode_kernel (fwd_pagedkv, fwd_splitkv): a block per (m0 rows of the
//    group * seqlen_q rows that share a KV head, split, KV head, sequence); the rows pack
//    the query heads of the KV head with the tokens (fmha_query_rows), so K and V are
//    read once for all of them. One stage writes O and the LSE; a split writes its
//    share's partial result (the keys of paged_split_range, the host reference's own
//    division) for fmha_hip_combine_kernel;
//  * fmha_hip_prefill_kernel (batch_prefill): the forward pass's blocks (m0 tokens of one
//    head) over variable query lengths and paged keys;
//  * fmha_hip_combine_kernel: merges the splits' partial results and the sink;
//  * fmha_hip_append_kernel (fwd_appendkv): writes new keys (rotary embedding applied)
//    and values into their pages, and the rotated queries.
// The block's attention is fmha_hip_attend (fmha_hip_kernel.hpp), with paged_kv_rows as
// its K/V addressing. Compiled for gfx90a and gfx940, never run: no AMD GPU is available
// to this project.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>

#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_kernel.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_paged_blocks.hpp"
#include "kdecl/kernels/fmha/paged_append_params.hpp"

namespace kdecl::kernels::hip {

// The block's attention over its descriptor (fmha_hip_paged_blocks.hpp) and the device pointers.
template <fmha_key C>
__device__ __forceinline__ void fmha_hip_paged_attend(const fmha_hip_paged_params& p, const fmha_hip_paged_block& d, int b,
                                                      unsigned char* lds) {
  using T = storage_t<C.sig.qkv>;
  const std::int32_t* table =
      p.page_list != nullptr ? p.page_list + p.page_offsets[b] : p.block_table + std::int64_t(b) * p.table_stride;
  fmha_hip_block<T, paged_kv_rows> bk{};
  bk.q = static_cast<const T*>(p.q) + d.q;
  bk.q_seq = p.q_seq;
  bk.q_head = p.q_head;
  bk.rows = d.rows;
  bk.row_count = d.row_count;
  bk.k = static_cast<const T*>(p.k_cache) + d.kv_head * p.k_head;
  bk.v = static_cast<const T*>(p.v_cache) + d.kv_head * p.v_head;
  bk.k_rows = {table, p.k_page, p.k_row, p.page_shift};
  bk.v_rows = {table, p.v_page, p.v_row, p.page_shift};
  bk.hdim_q = bk.hdim_v = p.hdim;
  bk.band = d.band;
  bk.keys = d.keys;
  bk.mod = {p.scale, p.scale_log2, p.soft_cap, p.inv_soft_cap, 0.0f, 0};
  if (d.partial) {
    bk.part_o = p.part_o + d.part_o;
    bk.part_lse = p.part_lse + d.part_lse;
    bk.part_seq = d.part_seq;
    bk.part_head = d.part_head;
    bk.part_lse_seq = d.part_lse_seq;
    bk.part_lse_head = d.part_lse_head;
  } else {
    bk.sinks = C.sig.sink ? p.sinks : nullptr;
    bk.o = static_cast<T*>(p.o) + d.o;
    bk.o_seq = p.o_seq;
    bk.o_head = p.o_head;
    bk.lse = p.lse != nullptr ? p.lse + d.lse : nullptr;
    bk.lse_head = d.lse_head;
  }
  fmha_hip_attend<C>(bk, lds);
}

template <fmha_key C>
__global__ void __launch_bounds__(fmha_geometry_of(C).threads) fmha_hip_decode_kernel(const fmha_hip_paged_params p) {
  if constexpr (compiling_for == C.algo.arch) {
    constexpr fmha_hip_geometry G = fmha_geometry_of(C);
    const int b = int(blockIdx.z);
    const fmha_hip_paged_block d = decode_block_of(p, C.sig.mask != fmha_mask::none, int(blockIdx.x), int(blockIdx.y), b,
                                                   p.seqlens_kv[b], G.m0, G.n0);
    if (d.empty) return;  // uniform over the block: before any barrier
    __shared__ __attribute__((aligned(16))) unsigned char lds[G.lds_bytes];
    fmha_hip_paged_attend<C>(p, d, b, lds);
  } else {
    __builtin_trap();  // code object of another arch: run() checks the device arch first
  }
}

template <fmha_key C>
__global__ void __launch_bounds__(fmha_geometry_of(C).threads) fmha_hip_prefill_kernel(const fmha_hip_paged_params p) {
  if constexpr (compiling_for == C.algo.arch) {
    constexpr fmha_hip_geometry G = fmha_geometry_of(C);
    const int m_block = int(gridDim.x) - 1 - int(blockIdx.x);  // the longest causal blocks start first
    const int b = int(blockIdx.z), q_row0 = p.cu_q[b];
    const fmha_hip_paged_block d = prefill_block_of(p, C.sig.mask != fmha_mask::none, m_block, int(blockIdx.y), b, q_row0,
                                                    p.cu_q[b + 1] - q_row0, p.seqlens_kv[b], G.m0);
    if (d.empty) return;
    __shared__ __attribute__((aligned(16))) unsigned char lds[G.lds_bytes];
    fmha_hip_paged_attend<C>(p, d, b, lds);
  } else {
    __builtin_trap();
  }
}

// Split-KV stage 2: one wave per (sequence, query head, token), 4 dims per lane (head dims
// up to 256): M = max(LSE_i, sink), O = sum exp(LSE_i - M) O_i / (sum exp(LSE_i - M) + exp(sink - M)),
// LSE = M + log(denominator); as the host reference's paged_merge.
struct fmha_hip_combine_params {
  const float* part_o;
  const float* part_lse;
  void* o;
  float* lse;
  const float* sinks;
  std::int64_t o_batch, o_seq, o_head;
  int seqlen_q, heads_q, hdim, splits;
};

template <dtype D>
__global__ void __launch_bounds__(64) fmha_hip_combine_kernel(const fmha_hip_combine_params p) {
  using T = storage_t<D>;
  constexpr float neg_inf = -__builtin_huge_valf();
  const int row = int(blockIdx.x);  // (b * heads_q + h) * seqlen_q + s
  const int s = row % p.seqlen_q, h = row / p.seqlen_q % p.heads_q, b = row / p.seqlen_q / p.heads_q;
  const int lane = int(threadIdx.x);
  const float* lse = p.part_lse + std::int64_t(row) * p.splits;
  float m = p.sinks != nullptr ? p.sinks[h] : neg_inf;
  for (int i = 0; i < p.splits; ++i) m = fmaxf(m, lse[i]);
  float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  float denom = 0.0f;
  const int d = 4 * lane;
  if (m != neg_inf) {
    denom = p.sinks != nullptr ? expf(p.sinks[h] - m) : 0.0f;
    for (int i = 0; i < p.splits; ++i) {
      if (lse[i] == neg_inf) continue;  // a split that saw no key
      const float w = expf(lse[i] - m);
      denom += w;
      if (d < p.hdim) {
        const raw_bytes<16> x = load_bytes<16>(p.part_o + (std::int64_t(row) * p.splits + i) * p.hdim + d);
#pragma unroll
        for (int e = 0; e < 4; ++e) acc[e] += w * x.template get<float>(e);
      }
    }
  }
  const float inv = denom > 0.0f ? 1.0f / denom : 0.0f;
  if (d < p.hdim) {
    raw_bytes<8> out;
#pragma unroll
    for (int e = 0; e < 4; ++e) out.set(e, from_epilogue<D, float>(acc[e] * inv));
    store_bytes<8>(static_cast<T*>(p.o) + b * p.o_batch + s * p.o_seq + h * p.o_head + d, out);
  }
  if (p.lse != nullptr && lane == 0) p.lse[row] = m == neg_inf ? neg_inf : m + logf(denom);
}

// Append-KV: one block per (sequence, new token), its four waves over heads; the rotation in
// fp32 from the fp32 cos / sin tables (interleaved: pairs (2i, 2i + 1); half: (i, i + rd / 2)),
// dims past rotary_dim copied. When q_out aliases q, each element is read by the lane that
// writes it (a pair stays within one lane).
using fmha_hip_append_params = paged_append_params;  // (kernels/fmha/paged_append_params.hpp)

template <dtype D>
__device__ inline void fmha_hip_rotate(const storage_t<D>* src, storage_t<D>* dst, const fmha_hip_append_params& p,
                                       int pos, int lane) {
  const int half = p.rotary_dim / 2;
  for (int i = lane; i < half; i += fmha_wave) {
    const int i0 = p.rope == rope_kind::interleaved ? 2 * i : i;
    const int i1 = p.rope == rope_kind::interleaved ? 2 * i + 1 : i + half;
    const float x0 = to_epilogue<D, float>(src[i0]), x1 = to_epilogue<D, float>(src[i1]);
    const float c = p.cos[std::int64_t(pos) * half + i], s = p.sin[std::int64_t(pos) * half + i];
    dst[i0] = from_epilogue<D, float>(x0 * c - x1 * s);
    dst[i1] = from_epilogue<D, float>(x0 * s + x1 * c);
  }
  for (int d = p.rotary_dim + lane; d < p.hdim; d += fmha_wave) dst[d] = src[d];
}

template <dtype D>
__global__ void __launch_bounds__(4 * fmha_wave) fmha_hip_append_kernel(const fmha_hip_append_params p) {
  using T = storage_t<D>;
  const int b = int(blockIdx.x) / p.seqlen_new, i = int(blockIdx.x) % p.seqlen_new;
  const int pos = p.seqlens_kv[b] + i;
  const std::int32_t* table =
      p.page_list != nullptr ? p.page_list + p.page_offsets[b] : p.block_table + std::int64_t(b) * p.table_stride;
  const paged_kv_rows k_rows{table, p.k_page, p.k_row, p.page_shift}, v_rows{table, p.v_page, p.v_row, p.page_shift};
  const bool rope = p.rope != rope_kind::none;
  const int wave = int(threadIdx.x) / fmha_wave, lane = int(threadIdx.x) % fmha_wave;
  if (p.q_out != nullptr)
    for (int h = wave; h < p.heads_q; h += 4) {
      const std::int64_t at = b * p.q_batch + i * p.q_seq + h * p.q_head;
      const T* src = static_cast<const T*>(p.q) + at;
      T* dst = static_cast<T*>(p.q_out) + at;
      if (rope) fmha_hip_rotate<D>(src, dst, p, pos, lane);
      else
        for (int d = lane; d < p.hdim; d += fmha_wave) dst[d] = src[d];
    }
  for (int h = wave; h < p.heads_kv; h += 4) {
    const std::int64_t src_at = ((std::int64_t(b) * p.seqlen_new + i) * p.heads_kv + h) * p.hdim;
    const T* ks = static_cast<const T*>(p.k_new) + src_at;
    const T* vs = static_cast<const T*>(p.v_new) + src_at;
    T* kd = static_cast<T*>(p.k_cache) + k_rows.at(pos) + h * p.k_head;
    T* vd = static_cast<T*>(p.v_cache) + v_rows.at(pos) + h * p.v_head;
    if (rope) fmha_hip_rotate<D>(ks, kd, p, pos, lane);
    else
      for (int d = lane; d < p.hdim; d += fmha_wave) kd[d] = ks[d];
    for (int d = lane; d < p.hdim; d += fmha_wave) vd[d] = vs[d];
  }
}

}  // namespace kdecl::kernels::hip
