// The process-wide kernel registry, filled before main() by the registrars
// that DECL_KERNEL_SET emits, from any number of translation units and
// libraries.
//
// * Thread-safe: lookups take a shared lock, registration an exclusive one.
// * Deterministic: iteration is in name order, never hash order.
// * A second registration under a taken name keeps the first. From the same
//   set it is a duplicate (the set was linked twice, or two sets share a
//   name): duplicates() and check() report it as an error. From another set
//   it is an overlap (two sets declare the same kernel, e.g. the full tuning
//   sets and the essential ones): overlaps() reports it; it harms nothing,
//   since a name is one key and so one kernel.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

#include "kdecl/core/status.hpp"
#include "kdecl/registry/kernel_instance.hpp"

namespace kdecl {

struct registered_kernel {
  std::shared_ptr<const kernel_instance> instance;
  std::string set;  // the kernel set that registered it first
};

struct duplicate_registration {
  std::string name;
  std::string first_set, second_set;
};

class registry {
 public:
  // The registry the declaration macros fill.
  static registry& global();

  registry() = default;
  registry(const registry&) = delete;
  registry& operator=(const registry&) = delete;

  // Returns false (and records a duplicate or an overlap) when the name is already taken.
  bool add(std::shared_ptr<const kernel_instance> instance, std::string_view set_name);

  std::size_t size() const;
  std::vector<registered_kernel> all() const;  // in name order
  std::vector<registered_kernel> filter(const std::function<bool(const registered_kernel&)>& keep) const;
  std::shared_ptr<const kernel_instance> find(std::string_view name) const;
  std::vector<std::shared_ptr<const gemm_instance>> gemm_kernels() const;  // in name order
  std::vector<std::string> set_names() const;
  std::vector<duplicate_registration> duplicates() const;
  std::vector<duplicate_registration> overlaps() const;

  // Error naming every duplicate, ok when there are none.
  status check() const;

  // Monotonic counter bumped by every add(); lets caches notice new kernels.
  std::uint64_t generation() const;

 private:
  mutable std::shared_mutex mutex_;
  std::map<std::string, registered_kernel, std::less<>> by_name_;
  std::vector<duplicate_registration> duplicates_;
  std::vector<duplicate_registration> overlaps_;
  std::uint64_t generation_ = 0;
};

}  // namespace kdecl
