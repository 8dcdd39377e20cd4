// The contract between the registry and a serving-attention kernel template: the
// families that read (or, appendkv, write) a paged KV cache (fwd_pagedkv,
// fwd_splitkv, fwd_appendkv, batch_prefill; kdecl/fmha/paged_kv.hpp). As
// fmha_kernel.hpp for the forward kernels, one partial specialisation per backend
//     template <fmha_key K> struct fmha_paged_kernel<K, backend::X> { ... };
// in include/kdecl/kernels/fmha/<backend>/, providing:
//
//   // Kernel-specific reasons it cannot run a valid, normalized problem (the dispatcher
//   // has checked the family, dtypes, cache dtype, head dim against the key, mask,
//   // soft-cap and sinks). Pointers may be assumed (256-byte aligned) when the caller
//   // has none yet.
//   static std::optional<std::string> why_not(const fmha_paged_problem&, const fmha_paged_args&);
//
//   // The split count a split-KV run uses (1: one stage) and the workspace it then
//   // needs, planned once (a CUDA plan asks the device's occupancy).
//   static paged_plan plan_of(const fmha_paged_problem&);
//
//   // Launch asynchronously on `stream` (ignored by host). The problem is normalized and
//   // args.workspace holds plan_of().workspace_bytes when that is not 0.
//   static status run(const fmha_paged_problem&, const fmha_paged_args&, void* stream);
//
// K is always concrete, of a paged family, and validated against the arch tables.
#pragma once

#include <cstddef>

#include "kdecl/core/enums.hpp"
#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::kernels {

// What a serving kernel will do with a problem: its split count (1: one stage) and
// the workspace the split-KV partials need (0 for one stage).
struct paged_plan {
  int splits = 1;
  std::size_t workspace_bytes = 0;
};

template <fmha_key K, backend B>
struct fmha_paged_kernel;  // specialised per backend; no definition means "no kernel for this backend"

}  // namespace kdecl::kernels
