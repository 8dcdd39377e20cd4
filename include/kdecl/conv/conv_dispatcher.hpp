// Selects and runs the best registered grouped-convolution kernel for a
// problem on a device, with the GEMM dispatcher's guarantees
// (dispatch/: registry index, refusal report, workspace lending).
//
// select() keeps a kernel only if it is built for the device's arch, matches
// the problem's signature exactly (direction, rank, layout, input, weight,
// output and accumulator dtypes), suits its filter specialization and
// groups_to_merge, finds every tensor's channels per group, strides and
// (when given) pointers aligned to its vector sizes, keeps offsets within 32
// bits where it indexes with 32 bits (device kernels), and accepts the
// problem itself (its why_not). Selection tiers (a tuning database, a learned
// ranking model: kdecl/tuning/selection_tiers.hpp) are asked first; otherwise
// survivors are ranked by the cost model (conv_heuristic.hpp), ties broken by
// name. When nothing survives, the selection explains why the closest
// candidates were refused.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/dispatch/registry_index.hpp"
#include "kdecl/dispatch/rejection.hpp"
#include "kdecl/dispatch/selection_tier.hpp"
#include "kdecl/dispatch/workspace_pool.hpp"
#include "kdecl/registry/conv_instance.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

struct conv_selection {
  std::shared_ptr<const conv_instance> kernel;  // null when nothing fits
  double estimated_us = 0.0;                     // the analytical model's estimate for `kernel`
  // Which tier chose ("tuning database", "learned model", "analytical model") and
  // what each tier consulted said (shown by explain()).
  std::string tier = "analytical model";
  std::vector<std::string> tier_notes;
  std::vector<rejected_candidate> rejected;     // filled only when explain is requested or nothing fits
  std::string problem_error;                    // set when the problem itself is invalid
  // No registered kernel compiles a fused problem's epilogue in: `kernel` computes the plain
  // convolution and the epilogue runs as a pass of its own (conv_instance::run_epilogue_pass), one
  // more read and write of the output; fusion_hint says what to declare for one pass.
  bool composed_epilogue = false;
  std::string fusion_hint;

  explicit operator bool() const { return kernel != nullptr; }
  // One paragraph: the choice, or why there is none with the closest candidates' reasons.
  std::string explain(std::size_t max_candidates = 5) const;
};

class conv_dispatcher;
using conv_selection_tier =
    dispatch::selection_tier<conv_dispatcher, grouped_conv_problem, grouped_conv_args, conv_instance>;

// Builds the tiers a new dispatcher starts with (kdecl::tuning installs one that
// reads KDECL_TUNING_DB and the model for the arch); `notes` receives load messages.
using conv_tier_factory = std::vector<std::shared_ptr<const conv_selection_tier>> (*)(
    const device& dev, const registry& reg, std::vector<std::string>& notes);
void set_default_conv_tiers(conv_tier_factory factory);

class conv_dispatcher {
 public:
  explicit conv_dispatcher(device dev, const registry& reg = registry::global());

  // args may be null: pointers are then assumed to be 256-byte aligned (as from cudaMalloc).
  conv_selection select(const grouped_conv_problem& problem, const grouped_conv_args* args = nullptr,
                        bool explain_all = false) const;

  // Every kernel that can run the problem, best first (for benchmarks and tuning), except a sm_90
  // kernel that reads channel-padded copies where its 16-byte-vector twin can run it as well.
  std::vector<std::pair<std::shared_ptr<const conv_instance>, double>> ranked(
      const grouped_conv_problem& problem, const grouped_conv_args* args = nullptr) const;

  // select() then run() on `stream` with the normalized problem. The error names the
  // problem and the reasons. When the chosen kernel can use a workspace and args
  // brings none, the dispatcher lends one of its own (one per stream, grown as needed).
  status run(const grouped_conv_problem& problem, const grouped_conv_args& args, void* stream = nullptr) const;

  const device& target() const { return device_; }
  const registry& kernels() const { return *registry_; }

  // Tiers consulted before the analytical model (not to be changed while select() runs elsewhere).
  void add_tier(std::shared_ptr<const conv_selection_tier> tier, bool first = false);
  void clear_tiers();
  void add_tier_note(std::string note) { tier_load_notes_.push_back(std::move(note)); }
  const std::vector<std::shared_ptr<const conv_selection_tier>>& tiers() const { return tiers_; }

 private:
  struct index;
  std::shared_ptr<const index> current_index() const;

  device device_;
  const registry* registry_;
  dispatch::index_cache<index> index_;
  mutable dispatch::workspace_pool workspaces_;
  std::vector<std::shared_ptr<const conv_selection_tier>> tiers_;
  std::vector<std::string> tier_load_notes_;
};

// Workspace bytes a selection can use on a normalized problem: its kernel's, and for a composed
// epilogue whose residual is the output itself (args.residual == args.out; without args: assumed),
// room for the plain result after the kernel's share (256-byte aligned).
std::size_t conv_workspace_bytes(const conv_selection& selection, const grouped_conv_problem& normalized,
                                 const grouped_conv_args* args = nullptr);

// Runs a selection on a normalized problem: its kernel, or (composed_epilogue) its kernel on the
// plain problem and then the epilogue pass. args.workspace: at least conv_workspace_bytes() for
// the composed case whose residual is the output (else it is refused); the kernel's own share
// only speeds it up.
status run_selected(const conv_selection& selection, const grouped_conv_problem& normalized,
                    const grouped_conv_args& args, void* stream);

// Reason a kernel cannot take a normalized, valid problem, or empty. Exposed for tests and the CLI.
std::optional<std::string> conv_rejection(const conv_instance& kernel, const grouped_conv_problem& normalized,
                                          const grouped_conv_args* args, int* closeness = nullptr);

}  // namespace kdecl
