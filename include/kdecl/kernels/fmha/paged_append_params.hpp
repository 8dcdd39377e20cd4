// The arguments of the append-KV kernels (fwd_appendkv), the same for every backend: CUDA's
// paged_append_kernel (kernels/fmha/cuda/decode/paged_append.cuh) and HIP's
// fmha_hip_append_kernel (kernels/fmha/hip/fmha_hip_paged_kernel.hpp) take this struct, filled
// once from the problem by paged_append_params_of. Plain C++ (strides in elements).
#pragma once

#include <cstdint>

#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::kernels {

struct paged_append_params {
  const void* q;
  void* q_out;          // null: Q is not rotated
  const void* k_new;
  const void* v_new;
  void* k_cache;
  void* v_cache;
  const std::int32_t* block_table;   // null when the page list is used
  const std::int32_t* page_list;
  const std::int32_t* page_offsets;
  const std::int32_t* seqlens_kv;
  const float* cos;
  const float* sin;
  const float* k_scale;  // fp8 cache: values are stored divided by their scale; null otherwise
  const float* v_scale;
  int scale_stride;      // 1: a scale per KV head, 0: one per tensor
  std::int64_t table_stride, q_batch, q_seq, q_head;
  std::int64_t k_page, k_row, k_head, v_page, v_row, v_head;
  int seqlen_new, heads_q, heads_kv, hdim, rotary_dim, page_shift;
  rope_kind rope;
};

// The arguments of a normalized, valid fwd_appendkv problem.
inline paged_append_params paged_append_params_of(const fmha_paged_problem& p, const fmha_paged_args& a) {
  paged_append_params kp{};
  kp.q = a.q;
  kp.q_out = a.q_out;
  kp.k_new = a.k_new;
  kp.v_new = a.v_new;
  kp.k_cache = a.k_cache;
  kp.v_cache = a.v_cache;
  kp.block_table = p.table == page_table_kind::block_table ? a.block_table : nullptr;
  kp.page_list = p.table == page_table_kind::page_list ? a.page_list : nullptr;
  kp.page_offsets = a.page_offsets;
  kp.seqlens_kv = a.seqlens_kv;
  kp.cos = a.rope_cos;
  kp.sin = a.rope_sin;
  kp.k_scale = p.fp8_cache() ? a.k_scale : nullptr;
  kp.v_scale = p.fp8_cache() ? a.v_scale : nullptr;
  kp.scale_stride = p.kv_scale_per_head ? 1 : 0;
  kp.table_stride = p.table_stride;
  kp.q_batch = p.q_strides.batch; kp.q_seq = p.q_strides.seq; kp.q_head = p.q_strides.head;
  kp.k_page = p.k_strides.page; kp.k_row = p.k_strides.row; kp.k_head = p.k_strides.head;
  kp.v_page = p.v_strides.page; kp.v_row = p.v_strides.row; kp.v_head = p.v_strides.head;
  kp.seqlen_new = int(p.seqlen_q);
  kp.heads_q = int(p.heads_q);
  kp.heads_kv = int(p.heads_kv);
  kp.hdim = int(p.hdim);
  kp.rotary_dim = int(p.rotary_dim);
  kp.page_shift = p.page_shift();
  kp.rope = p.rope;
  return kp;
}

}  // namespace kdecl::kernels
