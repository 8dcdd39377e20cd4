// Selects and runs the best registered attention kernel for a problem on a device,
// with the GEMM dispatcher's guarantees:
//
// select() keeps a kernel only if it is built for the device's arch, computes the
// problem's signature exactly (family, dtypes, batch or group mode, mask kind,
// bias kind, soft-cap, sinks, dropout, V layout; a kernel that can write the LSE
// also serves problems that do not ask for it), takes its head dims (equal, or
// smaller when the kernel pads them), divides the sequence lengths it does not
// pad, finds rows, strides and pointers aligned to its pipeline's access width,
// and accepts the problem itself (its why_not). Survivors are ranked by an
// estimate of their time (padded work over the arch's rate, wave quantisation,
// the memory bound), ties broken by name: the choice never depends on hash
// order. Selection tiers (a tuning database, a learned ranking model:
// kdecl/tuning/fmha_selection_tiers.hpp) are asked before that estimate. When
// nothing survives, the selection explains why the closest candidates were refused.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kdecl/dispatch/selection_tier.hpp"
#include "kdecl/fmha/fmha_problem.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"  // rejected_candidate (op-generic)
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl {

struct fmha_selection {
  std::shared_ptr<const fmha_instance> kernel;  // null when nothing fits
  double estimated_us = 0.0;                    // the analytical estimate for `kernel`
  // Which tier chose ("tuning database", "learned model", "analytical model") and
  // what each tier consulted said (shown by explain()).
  std::string tier = "analytical model";
  std::vector<std::string> tier_notes;
  std::vector<rejected_candidate> rejected;     // filled only when explain is requested or nothing fits
  std::string problem_error;                    // set when the problem itself is invalid

  explicit operator bool() const { return kernel != nullptr; }
  // One paragraph: the choice, or why there is none with the closest candidates' reasons.
  std::string explain(std::size_t max_candidates = 5) const;
};

class fmha_dispatcher;
using fmha_selection_tier = dispatch::selection_tier<fmha_dispatcher, fmha_problem, fmha_args, fmha_instance>;

// Builds the tiers a new dispatcher starts with (kdecl::tuning installs one that
// reads KDECL_TUNING_DB and the model for the arch); `notes` receives load messages.
using fmha_tier_factory = std::vector<std::shared_ptr<const fmha_selection_tier>> (*)(
    const device& dev, const registry& reg, std::vector<std::string>& notes);
void set_default_fmha_tiers(fmha_tier_factory factory);

class fmha_dispatcher {
 public:
  explicit fmha_dispatcher(device dev, const registry& reg = registry::global());

  // args may be null: pointers are then assumed to be 256-byte aligned (as from cudaMalloc).
  fmha_selection select(const fmha_problem& problem, const fmha_args* args = nullptr, bool explain_all = false) const;

  // Every kernel that can run the problem, best first (for benchmarks and tests).
  std::vector<std::pair<std::shared_ptr<const fmha_instance>, double>> ranked(const fmha_problem& problem,
                                                                            const fmha_args* args = nullptr) const;

  // select() then run() on `stream`. The error names the problem and the reasons.
  status run(const fmha_problem& problem, const fmha_args& args, void* stream = nullptr) const;

  const device& target() const { return device_; }
  const registry& kernels() const { return *registry_; }

  // Tiers consulted before the analytical estimate (not to be changed while select() runs elsewhere).
  void add_tier(std::shared_ptr<const fmha_selection_tier> tier, bool first = false);
  void clear_tiers();
  void add_tier_note(std::string note) { tier_load_notes_.push_back(std::move(note)); }
  const std::vector<std::shared_ptr<const fmha_selection_tier>>& tiers() const { return tiers_; }

 private:
  struct index;
  std::shared_ptr<const index> current_index() const;

  device device_;
  const registry* registry_;
  mutable std::mutex mutex_;
  mutable std::shared_ptr<const index> index_;
  std::vector<std::shared_ptr<const fmha_selection_tier>> tiers_;
  std::vector<std::string> tier_load_notes_;
};

// Reason a kernel cannot take a (normalized, valid) problem, or empty. Exposed for tests and the CLI.
std::optional<std::string> fmha_rejection(const fmha_instance& kernel, const fmha_problem& normalized,
                                          const fmha_args* args, int* closeness = nullptr);

// The ranking estimate of a kernel on a (normalized, valid) problem, in microseconds.
double fmha_estimate_us(const fmha_key& key, const fmha_problem& normalized);

}  // namespace kdecl
