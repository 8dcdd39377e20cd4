// fmha_paged_kernel<K, backend::host>: the serving families on the host, from the exact
// references of fmha_paged_host.hpp (double accumulation, the shared thread pool):
//   paged_decode  fwd_pagedkv in one pass; fwd_splitkv divides each sequence's visible keys
//                 into splits of whole n0-key tiles (as the CUDA kernel, planned by the same
//                 rule with the pool's threads as processors), computes every split's partial
//                 result into the workspace and combines them;
//   paged_append  fwd_appendkv (rotary embedding on K and Q);
//   host_tiled    batch_prefill (variable query lengths over the pages, chunked prefill).
#pragma once

#include <optional>
#include <string>

#include "kdecl/core/status.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/kernels/fmha/cuda/decode/decode_plan.hpp"  // plan_paged_decode: pure C++
#include "kdecl/kernels/fmha/fmha_paged_kernel.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_host.hpp"
#include "kdecl/kernels/fmha/paged_pointers.hpp"
#include "kdecl/kernels/host/thread_pool.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace kdecl::kernels {

template <fmha_key K>
struct fmha_paged_kernel<K, backend::host> {
  static_assert(is_paged_family(K.sig.family), "kdecl: fmha_paged_kernel serves the paged families");
  static_assert(K.sig.qkv == K.sig.o && (K.sig.qkv == dtype::fp16 || K.sig.qkv == dtype::bf16),
                "kdecl: the paged host kernels compute fp16 and bf16 (O in Q's dtype)");
  using T = host_storage_t<K.sig.qkv>;

  static std::optional<std::string> why_not(const fmha_paged_problem& p, const fmha_paged_args& a) {
    return detail::paged_pointers_missing(p, a);
  }

  // The CUDA kernel's rule, with the pool's threads as processors running one item each.
  static paged_plan plan_of(const fmha_paged_problem& p) {
    if (p.family != fmha_family::fwd_splitkv) return {};
    const int s = cuda::decode::plan_paged_decode(p, host::thread_pool::instance().size(), 1).splits;
    return {s, s > 1 ? std::size_t(p.batch * p.heads_q * p.seqlen_q) * std::size_t(s) * std::size_t(p.hdim + 1) *
                           sizeof(float)
                     : 0};
  }

  static status run(const fmha_paged_problem& p, const fmha_paged_args& a, void* /*stream*/) {
    if (auto why = why_not(p, a)) return status::error(*why);
    if (p.batch == 0) return status::ok();
    switch (p.family) {
      case fmha_family::fwd_appendkv: host::paged_append<T>(p, a); return status::ok();
      case fmha_family::batch_prefill: host::paged_prefill<T>(p, a); return status::ok();
      case fmha_family::fwd_pagedkv: host::paged_decode<T>(p, a); return status::ok();
      default: break;
    }
    const paged_plan plan = plan_of(p);
    const int s = plan.splits;
    if (s <= 1) {
      host::paged_decode<T>(p, a);
      return status::ok();
    }
    const std::size_t need = plan.workspace_bytes;
    if (!a.workspace || a.workspace_bytes < need)
      return status::error("split-KV with " + std::to_string(s) + " splits needs " + std::to_string(need) +
                           " bytes of workspace, " + std::to_string(a.workspace_bytes) + " given");
    float* part_o = static_cast<float*>(a.workspace);
    float* part_lse = part_o + std::size_t(p.batch * p.heads_q * p.seqlen_q) * std::size_t(s) * std::size_t(p.hdim);
    host::paged_split_partials<T>(p, a, s, K.algo.tile.n0, part_o, part_lse);
    host::paged_split_combine<T>(p, a, s, part_o, part_lse);
    return status::ok();
  }
};

}  // namespace kdecl::kernels
