// The pointers a paged-attention problem needs, checked once for every backend: the host
// kernels, the CUDA decode, append and prefill launchers and their registry checks all ask
// this first and add only their own rules (grid limits, alignment, workspace).
#pragma once

#include <optional>
#include <string>

#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::kernels::detail {

// Why the args lack a pointer the (normalized, valid) problem needs, or empty.
inline std::optional<std::string> paged_pointers_missing(const fmha_paged_problem& p, const fmha_paged_args& a) {
  if (!a.k_cache || !a.v_cache || !a.seqlens_kv) return std::string("the K and V caches and seqlens_kv must be given");
  if (p.table == page_table_kind::block_table && !a.block_table) return std::string("the block table pointer is null");
  if (p.table == page_table_kind::page_list && (!a.page_list || !a.page_offsets))
    return std::string("a page list needs page_list and page_offsets pointers");
  if (p.fp8_cache() && (!a.k_scale || !a.v_scale)) return std::string("an fp8 cache needs k_scale and v_scale pointers");
  if (p.family == fmha_family::fwd_appendkv) {
    if (!a.k_new || !a.v_new) return std::string("append-KV needs the new K and V (k_new, v_new)");
    if (p.rope != rope_kind::none && (!a.rope_cos || !a.rope_sin))
      return std::string("rotary embedding needs the cos and sin tables");
    if (a.q_out && !a.q) return std::string("q_out is given but Q is null");
    return std::nullopt;
  }
  if (!a.q || !a.o) return std::string("Q and O must be given");
  if (p.prefill() && !a.cu_seqlens_q) return std::string("batch_prefill needs the cu_seqlens_q pointer");
  if (p.lse && !a.lse) return std::string("the problem asks for the LSE but its pointer is null");
  if (p.sinks && !a.sinks) return std::string("sinks pointer is null");
  return std::nullopt;
}

}  // namespace kdecl::kernels::detail
