// Selects and runs the best registered GEMM kernel for a problem on a device.
//
// select() keeps a kernel only if it is built for the device's arch, matches
// the problem's signature exactly (dtypes, compute precision, layouts,
// variant, epilogue op), divides the sizes it does not pad, finds its pointers,
// leading dimensions and batch strides aligned to its access width (A and B
// only where its pipeline's epilogue takes any alignment of C and D), keeps
// offsets within 32 bits where it indexes with 32 bits (index_bits), and
// accepts the problem itself (its why_not). Every pointer must be aligned to
// its own element. Survivors are ranked by the heuristic's
// estimate, ties broken by name: the choice never depends on hash order.
// When nothing survives, the selection explains why the closest candidates
// were rejected.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kdecl/dispatch/choice_cache.hpp"
#include "kdecl/dispatch/registry_index.hpp"
#include "kdecl/dispatch/rejection.hpp"
#include "kdecl/dispatch/selection_tier.hpp"
#include "kdecl/dispatch/workspace_pool.hpp"
#include "kdecl/gemm/gemm_choice_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

struct gemm_selection {
  std::shared_ptr<const gemm_instance> kernel;   // null when nothing fits
  double estimated_us = 0.0;                     // the analytical model's estimate for `kernel`
  // Which tier chose: "tuning database", "learned model" or "analytical model",
  // and what each tier consulted before it said (shown by explain()).
  std::string tier = "analytical model";
  std::vector<std::string> tier_notes;
  std::vector<rejected_candidate> rejected;      // filled only when explain is requested or nothing fits
  std::string problem_error;                     // set when the problem itself is invalid

  explicit operator bool() const { return kernel != nullptr; }
  // One paragraph: the choice, or why there is none with the closest candidates' reasons.
  std::string explain(std::size_t max_candidates = 5) const;
};

class gemm_dispatcher;

// Tiers consulted before the analytical model (dispatch/selection_tier.hpp).
using gemm_selection_tier = dispatch::selection_tier<gemm_dispatcher, gemm_problem, gemm_args, gemm_instance>;

// Builds the tiers a new dispatcher starts with (set by kdecl::tuning, which
// reads KDECL_TUNING_DB and the shipped model); `notes` receives load messages
// such as a refused model. Null: only the analytical model.
using gemm_tier_factory = std::vector<std::shared_ptr<const gemm_selection_tier>> (*)(
    const device& dev, const registry& reg, std::vector<std::string>& notes);
void set_default_gemm_tiers(gemm_tier_factory factory);

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
  const registry& kernels() const { return *registry_; }

  // Tiers consulted before the analytical model (not to be changed while select() runs elsewhere).
  void add_tier(std::shared_ptr<const gemm_selection_tier> tier, bool first = false);
  void clear_tiers();
  void add_tier_note(std::string note) { tier_load_notes_.push_back(std::move(note)); }
  const std::vector<std::shared_ptr<const gemm_selection_tier>>& tiers() const { return tiers_; }

 private:
  struct index;
  std::shared_ptr<const index> current_index() const;
  // The analytical tier's choices by problem (the learned tier keeps its own).
  struct analytical_choice {
    std::shared_ptr<const gemm_instance> kernel;
    double estimated_us = 0.0;
  };

  device device_;
  const registry* registry_;
  dispatch::index_cache<index> index_;
  mutable dispatch::workspace_pool workspaces_;
  mutable dispatch::choice_cache<gemm_choice_key, analytical_choice, gemm_choice_key_hash> analytical_choices_;
  std::vector<std::shared_ptr<const gemm_selection_tier>> tiers_;
  std::vector<std::string> tier_load_notes_;
};

// Reason a kernel cannot take a problem, or empty. Exposed for tests and the CLI.
std::optional<std::string> gemm_rejection(const gemm_instance& kernel, const gemm_problem& normalized,
                                          const gemm_args* args, int* closeness = nullptr);

}  // namespace kdecl
