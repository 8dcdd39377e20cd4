// Selects and runs the best registered serving-attention kernel (decode, split-KV decode,
// append-KV, batch_prefill over a paged cache; kdecl/fmha/paged_kv.hpp) for a problem on a
// device, with the guarantees of the other dispatchers:
//
// select() keeps a kernel only if it is built for the device's arch, is of the problem's
// family, computes its dtypes (Q/O and the cache's: its own, or fp8), takes its head dim
// (equal, or smaller when the kernel pads it), its mask (a kernel of mask `generic`, the
// sliding window, takes every mask: none, causal from either corner and windows), its
// soft-cap and sinks (a kernel with them also serves problems without, except the CUDA
// batch_prefill kernels, which compile them in and refuse in their why_not), writes the LSE if
// asked, and accepts the problem itself (its why_not: grid limits, pointers, alignment).
// Survivors are ranked by an estimate of their time (bytes over bandwidth, padded head
// dims, waves of blocks; compute for prefill), ties broken by name. When nothing
// survives, the selection explains why the closest candidates were refused.
//
// run() lends the split-KV workspace (per stream, grown on demand) when the caller's args
// bring none, as the GEMM and convolution dispatchers lend theirs.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/dispatch/rejection.hpp"
#include "kdecl/dispatch/workspace_pool.hpp"
#include "kdecl/fmha/paged_kv.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

struct fmha_paged_selection {
  std::shared_ptr<const fmha_paged_instance> kernel;  // null when nothing fits
  double estimated_us = 0.0;
  int splits = 1;                    // the chosen kernel's plan (fwd_splitkv; 1: one stage)
  std::size_t workspace_bytes = 0;   // what that plan needs
  std::vector<rejected_candidate> rejected;  // filled only when explain is requested or nothing fits
  std::string problem_error;                 // set when the problem itself is invalid

  explicit operator bool() const { return kernel != nullptr; }
  std::string explain(std::size_t max_candidates = 5) const;
};

class fmha_paged_dispatcher {
 public:
  explicit fmha_paged_dispatcher(device dev, const registry& reg = registry::global());

  // args may be null: pointers are then assumed to be given and 256-byte aligned.
  fmha_paged_selection select(const fmha_paged_problem& problem, const fmha_paged_args* args = nullptr,
                              bool explain_all = false) const;

  // Every kernel that can run the problem, best first.
  std::vector<std::pair<std::shared_ptr<const fmha_paged_instance>, double>> ranked(
      const fmha_paged_problem& problem, const fmha_paged_args* args = nullptr) const;

  // select() then run on `stream`, lending the workspace when args bring none.
  status run(const fmha_paged_problem& problem, const fmha_paged_args& args, void* stream = nullptr) const;

  const device& target() const { return device_; }

 private:
  struct index;
  std::shared_ptr<const index> current_index() const;

  device device_;
  const registry* registry_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const index> index_;
  mutable dispatch::workspace_pool workspaces_;
};

// Reason a kernel cannot take a (normalized, valid) problem, or empty.
std::optional<std::string> fmha_paged_rejection(const fmha_paged_instance& kernel, const fmha_paged_problem& normalized,
                                                const fmha_paged_args* args, int* closeness = nullptr);

// The ranking estimate of a kernel on a (normalized, valid) problem, in microseconds.
double fmha_paged_estimate_us(const fmha_key& key, const fmha_paged_problem& normalized);

}  // namespace kdecl
