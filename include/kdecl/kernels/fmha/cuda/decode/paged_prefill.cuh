// batch_prefill over a paged KV cache for CUDA (sm_80 and sm_90): the mma_sync forward
// kernel (kernels/fmha/cuda/sm80/) with its K/V loads going through the page table
// (fmha_params::kv_pages; load_tile_paged), variable query lengths as its group mode
// (cu_seqlens_q), per-sequence key lengths from seqlens_kv. Chunked prefill is the
// bottom-right diagonal: a sequence's queries are its last keys, after a cached prefix.
// Tiles as the shipped forward instances (instances/fmha_mma_sync.cpp): 128 x 128 keys on
// 8 warps for head dim 64, 128 x 64 on 8 warps for 128, 64 x 32 on 4 warps for 256;
// masked variants (any mask kind at run time). The logit soft-cap and sinks are the key's, as in
// the forward kernel (compiled in or not: a kernel runs only the problems whose soft-cap and sinks
// it was built for, paged_prefill_features_reason); no bias on this route.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"
#include "kdecl/kernels/fmha/cuda/sm80/fmha_sm80.cuh"
#include "kdecl/kernels/fmha/fmha_launch_values.hpp"

namespace kdecl::kernels::cuda::decode {

template <dtype Dt, int D>
using prefill_traits = sm80::fmha_traits<Dt, D, D, D == 256 ? 64 : 128, D == 64 ? 128 : D == 128 ? 64 : 32,
                                         D == 256 ? 4 : 8, 2, true, fmha_bias::none, false, false>;

// contiguous_cu_kv (benchmarks): read the pool as contiguous varlen K/V [total_kv, Hkv, D]
// with these batch + 1 offsets instead of through the page table (the forward kernel's own path).
template <class Tr>
inline status launch_paged_prefill(const fmha_paged_problem& p, const fmha_paged_args& a, cudaStream_t stream,
                                   const std::int32_t* contiguous_cu_kv) {
  auto kernel = sm80::mma_sync_fmha_kernel<Tr>;
  if (Tr::smem_bytes > 48 * 1024) {
    const cudaError_t e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, Tr::smem_bytes);
    if (e != cudaSuccess) return status::error(std::string("paged prefill: cudaFuncSetAttribute: ") + cudaGetErrorString(e));
  }
  sm80::fmha_params kp{};
  kp.q = a.q;
  kp.k = a.k_cache;
  kp.v = a.v_cache;
  kp.o = a.o;
  kp.lse = p.lse ? a.lse : nullptr;
  kp.cu_q = a.cu_seqlens_q;
  kp.cu_kv = nullptr;
  kp.q_seq = p.q_strides.seq;
  kp.q_head = p.q_strides.head;
  kp.o_seq = p.o_strides.seq;
  kp.o_head = p.o_strides.head;
  kp.k_seq = p.k_strides.row;
  kp.k_head = p.k_strides.head;
  kp.v_seq = p.v_strides.row;
  kp.v_head = p.v_strides.head;
  kp.lse_batch = 0;
  kp.lse_head = p.total_q();  // [heads_q, total_q]
  kp.seqlen_q = int(p.seqlen_q);
  kp.hdim_q = kp.hdim_v = int(p.hdim);
  kp.group = int(p.group());
  set_fmha_mask_and_scales(kp, p);
  kp.sinks = p.sinks ? a.sinks : nullptr;
  kp.kv_pages = p.table == page_table_kind::block_table ? a.block_table : a.page_list;
  kp.kv_page_offsets = p.table == page_table_kind::page_list ? a.page_offsets : nullptr;
  kp.kv_pages_stride = p.table_stride;
  kp.seqlens_kv = a.seqlens_kv;
  kp.k_page = p.k_strides.page;
  kp.v_page = p.v_strides.page;
  kp.page_shift = p.page_shift();
  if (contiguous_cu_kv != nullptr) {
    kp.kv_pages = nullptr;
    kp.cu_kv = contiguous_cu_kv;
  }
  const dim3 grid(unsigned((p.seqlen_q + Tr::block_m - 1) / Tr::block_m), unsigned(p.heads_q), unsigned(p.batch));
  kernel<<<grid, Tr::threads, Tr::smem_bytes, stream>>>(kp);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("paged prefill launch: ") + cudaGetErrorString(e));
  return status::ok();
}

// Why a prefill kernel built with (SoftCap, Sink) cannot run the problem's soft-cap and sinks, or
// empty. Both are compiled into the kernel (the tanh on every logit, the sink starting each row's
// softmax), so a kernel takes exactly the problems it was built for; the dispatcher finds the key.
inline std::optional<std::string> paged_prefill_features_reason(const fmha_paged_problem& p, bool soft_cap, bool sink) {
  if (p.soft_cap > 0.0f && !soft_cap) {
    char cap[32];
    std::snprintf(cap, sizeof cap, "%g", double(p.soft_cap));
    return "soft_cap = " + std::string(cap) +
           ": this prefill kernel is built without a logit soft-cap (a key with logits_soft_cap(true) runs it)";
  }
  if (p.soft_cap <= 0.0f && soft_cap) return "this prefill kernel applies a logit soft-cap and the problem has none";
  if (p.sinks && !sink) return "the problem has sinks: this prefill kernel is built without them (a key with sink(true) runs it)";
  if (!p.sinks && sink) return "this prefill kernel adds a sink to every row and the problem has none";
  return std::nullopt;
}

// Why the prefill kernel of traits Tr cannot run a (normalized, valid) batch_prefill problem, or empty.
template <class Tr>
inline std::optional<std::string> paged_prefill_args_reason(const fmha_paged_problem& p, const fmha_paged_args& a) {
  if (auto why = paged_prefill_features_reason(p, Tr::soft_cap, Tr::sink)) return why;
  if (auto why = kernels::detail::paged_pointers_missing(p, a)) return why;
  if (p.batch > 65535 || p.heads_q > 65535) return "batch and heads_q are at most 65535 (the grid)";
  auto misaligned = [](const void* ptr) { return (reinterpret_cast<std::uintptr_t>(ptr) % 16) != 0; };
  if (misaligned(a.q) || misaligned(a.o) || misaligned(a.k_cache) || misaligned(a.v_cache))
    return "Q, O and the caches must be 16-byte aligned (16-byte loads)";
  return std::nullopt;
}

// Runs a normalized, valid batch_prefill problem on the prefill kernel of traits Tr.
template <class Tr>
inline status run_paged_prefill_with(const fmha_paged_problem& p, const fmha_paged_args& a, cudaStream_t stream,
                                     const std::int32_t* contiguous_cu_kv = nullptr) {
  if (auto why = paged_prefill_args_reason<Tr>(p, a)) return status::error(*why);
  if (p.batch == 0 || p.seqlen_q == 0) return status::ok();
  return launch_paged_prefill<Tr>(p, a, stream, contiguous_cu_kv);
}

}  // namespace kdecl::kernels::cuda::decode
