// A dispatcher's memory of what it chose for a problem: a bounded, thread-safe map from a
// problem's key to the choice, so that a repeated shape costs a hash lookup instead of ranking
// every eligible kernel again (the analytical tier ranks 10-40 kernels a call: 2-3.6 us on the H100
// machine's host, against 0.45 us for a cached choice; docs/perf/h100-2026-12-06-retune-mid-n-launch-cost/).
// Callers check a remembered kernel against the problem again before they use it.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <unordered_map>

namespace kdecl::dispatch {

template <class Key, class Choice, class Hash>
class choice_cache {
 public:
  // Beyond this many entries the cache starts again: a workload has far fewer distinct problems.
  static constexpr std::size_t capacity = 65536;

  std::optional<Choice> find(const Key& key) const {
    std::shared_lock lock(mutex_);
    if (auto it = entries_.find(key); it != entries_.end()) return it->second;
    return std::nullopt;
  }

  void remember(const Key& key, Choice choice) {
    std::unique_lock lock(mutex_);
    if (entries_.size() >= capacity) entries_.clear();
    entries_.insert_or_assign(key, std::move(choice));
  }

 private:
  mutable std::shared_mutex mutex_;
  std::unordered_map<Key, Choice, Hash> entries_;
};

}  // namespace kdecl::dispatch
