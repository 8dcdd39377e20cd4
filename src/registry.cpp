#include "kdecl/registry/registry.hpp"

#include <mutex>
#include <set>

#include <fmt/format.h>

namespace kdecl {

registry& registry::global() {
  static registry instance;  // constructed on first use, so registrars may run in any TU order
  return instance;
}

bool registry::add(std::shared_ptr<const kernel_instance> instance, std::string_view set_name) {
  std::unique_lock lock(mutex_);
  const std::string& name = instance->name();
  if (auto it = by_name_.find(name); it != by_name_.end()) {
    (it->second.set == set_name ? duplicates_ : overlaps_).push_back({name, it->second.set, std::string(set_name)});
    return false;
  }
  by_name_.emplace(name, registered_kernel{std::move(instance), std::string(set_name)});
  ++generation_;
  return true;
}

std::size_t registry::size() const {
  std::shared_lock lock(mutex_);
  return by_name_.size();
}

std::vector<registered_kernel> registry::all() const {
  return filter([](const registered_kernel&) { return true; });
}

std::vector<registered_kernel> registry::filter(
    const std::function<bool(const registered_kernel&)>& keep) const {
  std::shared_lock lock(mutex_);
  std::vector<registered_kernel> out;
  for (const auto& [name, entry] : by_name_)
    if (keep(entry)) out.push_back(entry);
  return out;
}

std::shared_ptr<const kernel_instance> registry::find(std::string_view name) const {
  std::shared_lock lock(mutex_);
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second.instance;
}

std::vector<std::shared_ptr<const gemm_instance>> registry::gemm_kernels() const {
  std::shared_lock lock(mutex_);
  std::vector<std::shared_ptr<const gemm_instance>> out;
  for (const auto& [name, entry] : by_name_)
    if (entry.instance->op() == op_kind::gemm)
      out.push_back(std::static_pointer_cast<const gemm_instance>(entry.instance));
  return out;
}

std::vector<std::string> registry::set_names() const {
  std::shared_lock lock(mutex_);
  std::set<std::string> names;
  for (const auto& [name, entry] : by_name_) names.insert(entry.set);
  return {names.begin(), names.end()};
}

std::vector<duplicate_registration> registry::duplicates() const {
  std::shared_lock lock(mutex_);
  return duplicates_;
}

std::vector<duplicate_registration> registry::overlaps() const {
  std::shared_lock lock(mutex_);
  return overlaps_;
}

status registry::check() const {
  auto dups = duplicates();
  if (dups.empty()) return status::ok();
  std::string msg = fmt::format("{} duplicate kernel registration(s) (a set linked twice, or two sets sharing a name):",
                                dups.size());
  for (const auto& d : dups) msg += fmt::format("\n  {} (set '{}' again)", d.name, d.first_set);
  return status::error(msg);
}

std::uint64_t registry::generation() const {
  std::shared_lock lock(mutex_);
  return generation_;
}

}  // namespace kdecl
