// Selection tiers: what a dispatcher consults before its analytical model, in
// the order added (a tuning database's exact hits, a learned ranking model;
// src/tuning/). One interface for every op's dispatcher.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace kdecl::dispatch {

// choose() returns a kernel that can run the normalized problem, or null with a
// note why it has no opinion; it may call dispatcher.ranked() for the eligible kernels.
template <class Dispatcher, class Problem, class Args, class Instance>
class selection_tier {
 public:
  using instance_type = Instance;
  virtual ~selection_tier() = default;
  virtual std::string tier() const = 0;  // "tuning database", "learned model"
  virtual std::shared_ptr<const Instance> choose(const Dispatcher& dispatcher, const Problem& normalized,
                                                 const Args* args, std::string& note) const = 0;
};

// Asks each tier in turn; a tier's pick is re-checked with `rejection` (a stale
// database never selects a kernel that cannot run the problem). Each tier leaves
// one line in `notes`; `chosen_by` names the tier that chose. Null: none did.
template <class Tier, class Dispatcher, class Problem, class Args, class Rejection>
std::shared_ptr<const typename Tier::instance_type> consult_tiers(
    const std::vector<std::shared_ptr<const Tier>>& tiers, const Dispatcher& dispatcher, const Problem& normalized,
    const Args* args, Rejection&& rejection, std::vector<std::string>& notes, std::string& chosen_by) {
  for (const auto& tier : tiers) {
    std::string note;
    auto k = tier->choose(dispatcher, normalized, args, note);
    if (k && rejection(*k, normalized, args)) {
      note += (note.empty() ? "" : "; ") + k->name() + " cannot run this problem: ignored";
      k = nullptr;
    }
    notes.push_back(tier->tier() + ": " + (note.empty() ? std::string(k ? "chose" : "no opinion") : note));
    if (k) {
      chosen_by = tier->tier();
      return k;
    }
  }
  return nullptr;
}

}  // namespace kdecl::dispatch
