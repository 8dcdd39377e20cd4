// Convolution keys and a recording test double for conv dispatcher unit tests.
#pragma once

#include <atomic>

#include "kdecl/registry/conv_instance.hpp"

namespace kdecl::testing {

inline grouped_conv_key make_conv_key(conv_direction dir, dtype d, int tm, int tn, int tk,
                                      arch_id arch = arch_id::sm_90, pipeline pipe = pipeline::cp_async,
                                      int vector = 8) {
  grouped_conv_key k;
  k.sig.dir = dir;
  k.sig.ndim = 2;
  k.sig.lay = conv_layout::nhwgc;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = d;
  k.sig.acc = default_accumulator(d);
  k.algo.tile = {tm, tn, tk};
  k.algo.warps = {2, 2, 1};
  k.algo.warp_tile = {32, 32, 16};
  k.algo.pipe = pipe;
  k.algo.stages = 3;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = vector;
  k.algo.arch = arch;
  return k;
}

// Counts runs; never touches memory. Used only where the test is about selection.
class recording_conv final : public conv_instance {
 public:
  explicit recording_conv(const grouped_conv_key& k) : conv_instance(k) {}
  std::optional<std::string> why_not(const grouped_conv_problem&, const grouped_conv_args&) const override {
    return refusal;
  }
  status run(const grouped_conv_problem&, const grouped_conv_args& args, void*) const override {
    ++runs;
    last_out = args.out;
    last_workspace = args.workspace;
    last_workspace_bytes = args.workspace_bytes;
    return status::ok();
  }
  std::size_t workspace_bytes(const grouped_conv_problem&) const override { return wants_workspace; }
  bool has_epilogue_pass() const override { return true; }
  status run_epilogue_pass(const grouped_conv_problem&, const void* result, const grouped_conv_args&,
                           void*) const override {
    ++epilogue_passes;
    last_result = result;
    return status::ok();
  }
  std::optional<std::string> refusal;
  std::size_t wants_workspace = 0;
  mutable std::atomic<int> runs{0}, epilogue_passes{0};
  mutable const void* last_result = nullptr;
  mutable const void* last_out = nullptr;
  mutable void* last_workspace = nullptr;
  mutable std::size_t last_workspace_bytes = 0;
};

}  // namespace kdecl::testing
