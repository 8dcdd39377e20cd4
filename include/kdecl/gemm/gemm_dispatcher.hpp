// Selects and runs the best registered GEMM kernel for a problem on a device.
//
// select() keeps a kernel only if it is built for the device's arch, matches
// the problem's signature exactly (dtypes, compute precision, layouts,
// variant, epilogue op), divides the sizes it does not pad, finds its pointers,
// leading dimensions and batch strides aligned to its access width, keeps
// offsets within 32 bits where it indexes with 32 bits, and accepts the
// problem itself (its why_not). Survivors are ranked by the heuristic's
// estimate, ties broken by name: the choice never depends on hash order.
// When nothing survives, the selection explains why the closest candidates
// were rejected.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/buffer.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

struct rejected_candidate {
  std::string kernel;
  std::string reason;
  int closeness = 0;  // how many selection stages it passed; larger = closer
};

struct gemm_selection {
  std::shared_ptr<const gemm_instance> kernel;   // null when nothing fits
  double estimated_us = 0.0;
  std::vector<rejected_candidate> rejected;      // filled only when explain is requested or nothing fits
  std::string problem_error;                     // set when the problem itself is invalid

  explicit operator bool() const { return kernel != nullptr; }
  // One paragraph: the choice, or why there is none with the closest candidates' reasons.
  std::string explain(std::size_t max_candidates = 5) const;
};

class gemm_dispatcher {
 public:
  explicit gemm_dispatcher(device dev, const registry& reg = registry::global());

  // args may be null: pointers are then assumed to be 256-byte aligned (as from cudaMalloc).
  gemm_selection select(const gemm_problem& problem, const gemm_args* args = nullptr,
                        bool explain_all = false) const;

  // Every kernel that can run the problem, best first (for benchmarks and tuning).
  std::vector<std::pair<std::shared_ptr<const gemm_instance>, double>> ranked(
      const gemm_problem& problem, const gemm_args* args = nullptr) const;

  // select() then run() on `stream`. The error names the problem and the reasons.
  // When the chosen kernel can use a workspace and args brings none, the
  // dispatcher lends one of its own (one per stream, grown as needed).
  status run(const gemm_problem& problem, const gemm_args& args, void* stream = nullptr) const;

  const device& target() const { return device_; }

 private:
  struct index;
  std::shared_ptr<const index> current_index() const;

  device device_;
  const registry* registry_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const index> index_;
  mutable std::unordered_map<void*, buffer> workspaces_;
};

// Reason a kernel cannot take a problem, or empty. Exposed for tests and the CLI.
std::optional<std::string> gemm_rejection(const gemm_instance& kernel, const gemm_problem& normalized,
                                          const gemm_args* args, int* closeness = nullptr);

}  // namespace kdecl
