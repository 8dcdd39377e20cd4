// Keys and a recording test double for registry and dispatcher unit tests.
#pragma once

#include <atomic>

#include "kdecl/registry/kernel_instance.hpp"

namespace kdecl::testing {

inline gemm_key make_key(dtype d, gemm_layout lay, int tm, int tn, int tk, arch_id arch = arch_id::sm_90,
                         pipeline pipe = pipeline::cp_async) {
  gemm_key k;
  k.sig.a = k.sig.b = k.sig.c = k.sig.compute = d;
  k.sig.acc = default_accumulator(d);
  k.sig.lay = lay;
  k.algo.tile = {tm, tn, tk};
  k.algo.warps = {2, 2, 1};
  k.algo.warp_tile = {32, 32, 16};
  k.algo.pipe = pipe;
  k.algo.stages = 3;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_bytes = 16;
  k.algo.arch = arch;
  return k;
}

// Counts runs; never touches memory. Used only where the test is about selection.
class recording_gemm final : public gemm_instance {
 public:
  explicit recording_gemm(const gemm_key& k) : gemm_instance(k) {}
  std::optional<std::string> why_not(const gemm_problem&, const gemm_args&) const override { return refusal; }
  status run(const gemm_problem&, const gemm_args& args, void*) const override {
    ++runs;
    last_workspace = args.workspace;
    last_workspace_bytes = args.workspace_bytes;
    return status::ok();
  }
  std::size_t workspace_bytes(const gemm_problem&) const override { return wants_workspace; }
  std::optional<std::string> refusal;
  std::size_t wants_workspace = 0;
  mutable std::atomic<int> runs{0};
  mutable void* last_workspace = nullptr;
  mutable std::size_t last_workspace_bytes = 0;
};

}  // namespace kdecl::testing
