// What each block of the HIP serving-attention kernels works on, as plain constexpr C++
// (no HIP headers): the kernel arguments run() fills from a problem (paged_params_of),
// and, per block, its query rows, its keys, its mask band and the element offsets of its
// results (decode_block_of, prefill_block_of). The kernels (fmha_hip_paged_kernel.hpp)
// add the device pointers; tests/unit/fmha_hip_paged_test.cpp calls the same functions
// over random problems and checks every (row, key) pair and every offset against the
// host reference's own addressing (kernels/fmha/host/fmha_paged_host.hpp).
#pragma once

#include <cstdint>

#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_band.hpp"
#include "kdecl/kernels/fmha/hip/fmha_hip_rows.hpp"
#include "kdecl/kernels/fmha/score_mod.hpp"

namespace kdecl::kernels::hip {

// Arguments of the decode and prefill kernels (strides in elements).
struct fmha_hip_paged_params {
  const void* q;
  void* o;
  float* lse;                       // null: not written
  const void* k_cache;
  const void* v_cache;
  const std::int32_t* block_table;  // null when the page list is used
  const std::int32_t* page_list;
  const std::int32_t* page_offsets;
  const std::int32_t* seqlens_kv;
  const std::int32_t* cu_q;         // batch_prefill: query offsets
  const float* sinks;               // null: none
  float* part_o;                    // split-KV (splits > 1): [batch, heads_q, seqlen_q, splits, hdim]
  float* part_lse;                  // [batch, heads_q, seqlen_q, splits]
  std::int64_t table_stride;
  std::int64_t q_batch, q_seq, q_head, o_batch, o_seq, o_head;
  std::int64_t k_page, k_row, k_head, v_page, v_row, v_head;
  std::int64_t total_q;             // batch_prefill: the LSE's head stride
  int seqlen_q, heads_q, group, hdim, page_shift, splits;
  bool top_left;                    // the diagonal through (0, 0) rather than the bottom-right corner
  int window_left, window_right;    // negative: unbounded (causal: -1, 0)
  float scale, scale_log2, soft_cap, inv_soft_cap;
};

// The kernel arguments of a normalized, valid problem run with `splits` (1: one stage);
// the workspace holds the partial results when splits > 1.
inline fmha_hip_paged_params paged_params_of(const fmha_paged_problem& p, const fmha_paged_args& a, int splits) {
  fmha_hip_paged_params kp{};
  kp.q = a.q;
  kp.o = a.o;
  kp.lse = p.lse ? a.lse : nullptr;
  kp.k_cache = a.k_cache;
  kp.v_cache = a.v_cache;
  kp.block_table = p.table == page_table_kind::block_table ? a.block_table : nullptr;
  kp.page_list = p.table == page_table_kind::page_list ? a.page_list : nullptr;
  kp.page_offsets = a.page_offsets;
  kp.seqlens_kv = a.seqlens_kv;
  kp.cu_q = a.cu_seqlens_q;
  kp.sinks = p.sinks ? a.sinks : nullptr;
  if (splits > 1) {
    kp.part_o = static_cast<float*>(a.workspace);
    kp.part_lse = kp.part_o + p.batch * p.heads_q * p.seqlen_q * splits * p.hdim;
  }
  kp.table_stride = p.table_stride;
  kp.q_batch = p.q_strides.batch; kp.q_seq = p.q_strides.seq; kp.q_head = p.q_strides.head;
  kp.o_batch = p.o_strides.batch; kp.o_seq = p.o_strides.seq; kp.o_head = p.o_strides.head;
  kp.k_page = p.k_strides.page; kp.k_row = p.k_strides.row; kp.k_head = p.k_strides.head;
  kp.v_page = p.v_strides.page; kp.v_row = p.v_strides.row; kp.v_head = p.v_strides.head;
  kp.total_q = p.total_q();
  kp.seqlen_q = int(p.seqlen_q);
  kp.heads_q = int(p.heads_q);
  kp.group = int(p.group());
  kp.hdim = int(p.hdim);
  kp.page_shift = p.page_shift();
  kp.splits = splits;
  set_fmha_mask_and_scales(kp, p);
  return kp;
}

// One block's share: element offsets from the tensors' bases (Q, O, the LSE; the K/V head's
// rows are head * k_head + rows.at(j)), and for a split its partial results'.
struct fmha_hip_paged_block {
  bool empty = true;        // no rows: the block returns at once
  fmha_query_rows rows;
  int row_count = 0;
  int kv_head = 0;
  fmha_band band;
  fmha_key_span keys;
  std::int64_t q = 0, o = 0, lse = 0, lse_head = 0;
  bool partial = false;     // split-KV: results go to part_o / part_lse
  std::int64_t part_o = 0, part_lse = 0, part_seq = 0, part_head = 0, part_lse_seq = 0, part_lse_head = 0;
};

// The mask band of a sequence of sq queries over skv keys (masked: the key's mask is not none).
constexpr fmha_band paged_band_of(const fmha_hip_paged_params& p, bool masked, int sq, int skv) {
  return {masked, p.top_left ? 0 : skv - sq, p.window_left, p.window_right};
}

// Decode block x (row group x / splits, split x % splits) of KV head hk of sequence b,
// whose skv keys the kernel read from seqlens_kv; m0 rows and n0-key blocks.
constexpr fmha_hip_paged_block decode_block_of(const fmha_hip_paged_params& p, bool masked, int x, int hk, int b, int skv,
                                               int m0, int n0) {
  fmha_hip_paged_block k;
  const int split = x % p.splits, first = x / p.splits * m0;
  const int sq = p.seqlen_q, total_rows = p.group * sq;
  if (first >= total_rows) return k;
  k.empty = false;
  k.rows = {first, p.group, hk * p.group};
  k.row_count = total_rows - first < m0 ? total_rows - first : m0;
  k.kv_head = hk;
  k.band = paged_band_of(p, masked, sq, skv);
  k.q = b * p.q_batch;
  if (p.splits > 1) {
    // The host reference's division (paged_kv.hpp): whole n0-key tiles of the band from its start.
    const fmha_mask mask = !masked ? fmha_mask::none : p.top_left ? fmha_mask::top_left : fmha_mask::generic;
    const paged_key_range share = paged_split_range(paged_band(mask, p.window_left, p.window_right, sq, skv), split, p.splits, n0);
    k.keys = {int(share.begin), int(share.end)};
    k.partial = true;
    const std::int64_t row0 = std::int64_t(b) * p.heads_q * sq * p.splits + split;  // (b, head 0, token 0, split)
    k.part_lse = row0;
    k.part_o = row0 * p.hdim;
    k.part_lse_seq = p.splits;
    k.part_lse_head = std::int64_t(sq) * p.splits;
    k.part_seq = k.part_lse_seq * p.hdim;
    k.part_head = k.part_lse_head * p.hdim;
  } else {
    k.keys = {0, skv};
    k.o = b * p.o_batch;
    k.lse = std::int64_t(b) * p.heads_q * sq;
    k.lse_head = sq;
  }
  return k;
}

// Prefill block (m_block, head h, sequence b) of a sequence whose queries are rows
// q_row0 .. q_row0 + sq - 1 of Q and O and which has skv keys (its queries are the last
// of them: chunked prefill puts a cached prefix before them).
constexpr fmha_hip_paged_block prefill_block_of(const fmha_hip_paged_params& p, bool masked, int m_block, int h, int b,
                                                int q_row0, int sq, int skv, int m0) {
  (void)b;
  fmha_hip_paged_block k;
  const int first = m_block * m0;
  if (first >= sq) return k;
  k.empty = false;
  k.rows = {first, 1, h};
  k.row_count = sq - first < m0 ? sq - first : m0;
  k.kv_head = h / p.group;
  k.band = paged_band_of(p, masked, sq, skv);
  k.keys = {0, skv};
  k.q = std::int64_t(q_row0) * p.q_seq;
  k.o = std::int64_t(q_row0) * p.o_seq;
  k.lse = q_row0;
  k.lse_head = p.total_q;
  return k;
}

}  // namespace kdecl::kernels::hip
