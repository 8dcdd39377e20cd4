#include "kernel_filter.hpp"

#include <set>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "kdecl/io/key_json.hpp"

namespace kdecl::cli {
namespace {

// Every field a filter may name (the keys of fields_of()).
const std::set<std::string>& known_fields() {
  static const std::set<std::string> names = [] {
    // Fields are the same for every GEMM kernel: derive them from one key.
    gemm_key k;
    k.algo.tile = k.algo.warps = k.algo.warp_tile = {1, 1, 1};
    auto j = to_json(k);
    std::set<std::string> out{"name", "set", "op", "layout"};
    for (const char* part : {"signature", "algorithm"})
      for (auto& [f, v] : j[part].items()) {
        out.insert(f);
        if (v.is_array())
          for (const char* d : {"_m", "_n", "_k"}) out.insert(f + d);
      }
    return out;
  }();
  return names;
}

}  // namespace

kernel_fields fields_of(const registered_kernel& kernel) {
  kernel_fields f{{"name", kernel.instance->name()}, {"set", kernel.set},
                  {"op", std::string(to_string(kernel.instance->op()))}};
  if (kernel.instance->op() != op_kind::gemm) return f;
  const auto& key = static_cast<const gemm_instance&>(*kernel.instance).key();
  auto j = to_json(key);
  for (const char* part : {"signature", "algorithm"})
    for (auto& [name, v] : j[part].items()) {
      if (v.is_array()) {
        f[name] = fmt::format("{}x{}x{}", v[0].get<int>(), v[1].get<int>(), v[2].get<int>());
        f[name + "_m"] = std::to_string(v[0].get<int>());
        f[name + "_n"] = std::to_string(v[1].get<int>());
        f[name + "_k"] = std::to_string(v[2].get<int>());
      } else if (v.is_string()) {
        f[name] = v.get<std::string>();
      } else {
        f[name] = v.dump();
      }
    }
  f["layout"] = f["layout_a"] + f["layout_b"] + f["layout_c"];
  return f;
}

kernel_filter::kernel_filter(const std::string& expr) {
  std::size_t start = 0;
  while (start <= expr.size()) {
    auto end = expr.find(',', start);
    auto term = expr.substr(start, end == std::string::npos ? std::string::npos : end - start);
    start = end == std::string::npos ? expr.size() + 1 : end + 1;
    if (term.empty()) continue;
    auto op = term.find_first_of("=~");
    if (op == std::string::npos || op == 0)
      throw std::invalid_argument(fmt::format("filter term '{}' is not field=value or field~text", term));
    filter_term t{term.substr(0, op), term[op] == '~', term.substr(op + 1)};
    if (!known_fields().count(t.field))
      throw std::invalid_argument(fmt::format("filter field '{}' is unknown; fields: {}", t.field,
                                              fmt::join(known_fields(), ", ")));
    terms_.push_back(std::move(t));
  }
}

bool kernel_filter::matches(const kernel_fields& fields) const {
  for (const auto& t : terms_) {
    auto it = fields.find(t.field);
    if (it == fields.end()) return false;
    if (t.substring ? it->second.find(t.value) == std::string::npos : it->second != t.value) return false;
  }
  return true;
}

std::unique_ptr<registry> registry_matching(const std::string& expr) {
  kernel_filter keep(expr);
  auto out = std::make_unique<registry>();
  for (const auto& k : registry::global().filter([&](const registered_kernel& k) { return keep.matches(fields_of(k)); }))
    out->add(k.instance, k.set);
  return out;
}

}  // namespace kdecl::cli
