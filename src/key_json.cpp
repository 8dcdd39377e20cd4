#include "kdecl/io/key_json.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>

#include <fmt/format.h>

#include "kdecl/gemm/gemm_name.hpp"

namespace kdecl {
namespace {

using json = nlohmann::json;

json mnk_json(const mnk& v) { return json::array({v.m, v.n, v.k}); }

// Readers of one field: each names the field and what is wrong with it, and
// reads integers only when they are integers within int's range (never a
// float truncated or a 64-bit value wrapped).
const json& member(const json& j, const char* field, const char* what) {
  if (!j.is_object()) throw std::invalid_argument(fmt::format("key JSON: {} is not an object", what));
  auto it = j.find(field);
  if (it == j.end()) throw std::invalid_argument(fmt::format("key JSON lacks field '{}'", field));
  return *it;
}

template <class E>
E enum_field(const json& j, const char* field) {
  const auto& v = member(j, field, "the signature or algorithm");
  if (!v.is_string()) throw std::invalid_argument(fmt::format("key JSON field '{}' is not a string", field));
  const auto& s = v.get_ref<const std::string&>();
  auto e = parse<E>(s);
  if (!e) throw std::invalid_argument(fmt::format("key JSON field '{}' has unknown value '{}'", field, s));
  return *e;
}

int int_value(const json& v, const std::string& field) {
  if (!v.is_number_integer())
    throw std::invalid_argument(fmt::format("key JSON field '{}' is not an integer", field));
  const bool fits = v.is_number_unsigned() ? v.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<int>::max())
                                           : v.get<std::int64_t>() >= std::numeric_limits<int>::min() &&
                                                 v.get<std::int64_t>() <= std::numeric_limits<int>::max();
  if (!fits) throw std::invalid_argument(fmt::format("key JSON field '{}' = {} does not fit an int", field, v.dump()));
  return int(v.get<std::int64_t>());
}

int int_field(const json& j, const char* field) { return int_value(member(j, field, "the signature or algorithm"), field); }

mnk mnk_field(const json& j, const char* field) {
  const auto& a = member(j, field, "the algorithm");
  if (!a.is_array() || a.size() != 3)
    throw std::invalid_argument(fmt::format("key JSON field '{}' is not an array [m, n, k]", field));
  return {int_value(a[0], std::string(field) + "[0]"), int_value(a[1], std::string(field) + "[1]"),
          int_value(a[2], std::string(field) + "[2]")};
}

// A string member of an object, or `fallback` when absent; an error when present but not a string.
std::string string_or(const json& j, const char* field, const std::string& fallback, const char* what) {
  auto it = j.find(field);
  if (it == j.end()) return fallback;
  if (!it->is_string()) throw std::invalid_argument(fmt::format("{}: '{}' is not a string", what, field));
  return it->get<std::string>();
}

}  // namespace

json to_json(const gemm_key& k) {
  const auto& s = k.sig;
  const auto& a = k.algo;
  return json{
      {"op", "gemm"},
      {"signature",
       {{"dtype_a", to_string(s.a)}, {"dtype_b", to_string(s.b)}, {"dtype_c", to_string(s.c)},
        {"dtype_acc", to_string(s.acc)}, {"compute", to_string(s.compute)},
        {"layout_a", to_string(s.lay.a)}, {"layout_b", to_string(s.lay.b)}, {"layout_c", to_string(s.lay.c)},
        {"variant", to_string(s.variant)}, {"elementwise", to_string(s.ew)}, {"num_d", s.num_d}}},
      {"algorithm",
       {{"tile", mnk_json(a.tile)}, {"warps", mnk_json(a.warps)}, {"warp_tile", mnk_json(a.warp_tile)},
        {"pipeline", to_string(a.pipe)}, {"stages", a.stages}, {"epilogue", to_string(a.epi)},
        {"scheduler", to_string(a.sched)}, {"pad_m", to_string(a.pad_m)}, {"pad_n", to_string(a.pad_n)},
        {"pad_k", to_string(a.pad_k)}, {"vector_bytes", a.vector_bytes}, {"cluster_m", a.cluster_m},
        {"cluster_n", a.cluster_n}, {"index_bits", a.index_bits}, {"arch", to_string(a.arch)}}}};
}

gemm_key gemm_key_from_json(const json& j) {
  if (!j.is_object() || string_or(j, "op", "", "key JSON") != "gemm")
    throw std::invalid_argument("key JSON is not an object with \"op\": \"gemm\"");
  if (!j.contains("signature") || !j.contains("algorithm"))
    throw std::invalid_argument("key JSON lacks 'signature' or 'algorithm'");
  const auto& s = j.at("signature");
  const auto& a = j.at("algorithm");
  if (!s.is_object() || !a.is_object())
    throw std::invalid_argument("key JSON: 'signature' and 'algorithm' must be objects");
  gemm_key k;
  k.sig.a = enum_field<dtype>(s, "dtype_a");
  k.sig.b = enum_field<dtype>(s, "dtype_b");
  k.sig.c = enum_field<dtype>(s, "dtype_c");
  k.sig.acc = enum_field<dtype>(s, "dtype_acc");
  k.sig.compute = enum_field<dtype>(s, "compute");
  k.sig.lay = {enum_field<layout>(s, "layout_a"), enum_field<layout>(s, "layout_b"), enum_field<layout>(s, "layout_c")};
  k.sig.variant = enum_field<gemm_variant>(s, "variant");
  k.sig.ew = enum_field<elementwise>(s, "elementwise");
  k.sig.num_d = int_field(s, "num_d");
  k.algo.tile = mnk_field(a, "tile");
  k.algo.warps = mnk_field(a, "warps");
  k.algo.warp_tile = mnk_field(a, "warp_tile");
  k.algo.pipe = enum_field<pipeline>(a, "pipeline");
  k.algo.stages = int_field(a, "stages");
  k.algo.epi = enum_field<epilogue>(a, "epilogue");
  k.algo.sched = enum_field<scheduler>(a, "scheduler");
  k.algo.pad_m = enum_field<tristate>(a, "pad_m");
  k.algo.pad_n = enum_field<tristate>(a, "pad_n");
  k.algo.pad_k = enum_field<tristate>(a, "pad_k");
  k.algo.vector_bytes = int_field(a, "vector_bytes");
  k.algo.cluster_m = int_field(a, "cluster_m");
  k.algo.cluster_n = int_field(a, "cluster_n");
  // Exports made before the field existed hold 32-bit kernels.
  k.algo.index_bits = a.contains("index_bits") ? int_field(a, "index_bits") : 32;
  if (k.algo.index_bits != 32 && k.algo.index_bits != 64)
    throw std::invalid_argument(fmt::format("key JSON field 'index_bits' is {}, not 32 or 64", k.algo.index_bits));
  k.algo.arch = enum_field<arch_id>(a, "arch");
  return k;
}

json export_registry(const registry& reg) {
  json kernels = json::array();
  for (const auto& entry : reg.all()) {
    json item{{"name", entry.instance->name()}, {"op", to_string(entry.instance->op())}, {"set", entry.set}};
    if (entry.instance->op() == op_kind::gemm)
      item["key"] = to_json(static_cast<const gemm_instance&>(*entry.instance).key());
    kernels.push_back(std::move(item));
  }
  return json{{"format", "kdecl-registry"}, {"version", 1}, {"kernels", std::move(kernels)}};
}

std::vector<imported_kernel> import_registry(const json& j) {
  constexpr const char* what = "kdecl registry export";
  if (!j.is_object() || string_or(j, "format", "", what) != "kdecl-registry")
    throw std::invalid_argument("not a kdecl registry export (\"format\" is not \"kdecl-registry\")");
  const auto version = j.find("version");
  if (version == j.end() || !version->is_number_integer() || *version != 1)
    throw std::invalid_argument(fmt::format("unsupported kdecl registry export version {}",
                                            version == j.end() ? "(none)" : version->dump()));
  const auto kernels = j.find("kernels");
  if (kernels == j.end() || !kernels->is_array())
    throw std::invalid_argument("kdecl registry export: 'kernels' is not an array");
  std::vector<imported_kernel> out;
  for (const auto& item : *kernels) {
    if (!item.is_object()) throw std::invalid_argument("kdecl registry export: a kernel entry is not an object");
    if (string_or(item, "op", "", what) != "gemm") continue;  // other operations have no kernels yet
    const auto name = item.find("name");
    if (name == item.end() || !name->is_string())
      throw std::invalid_argument("kdecl registry export: a kernel entry has no string 'name'");
    if (!item.contains("key"))
      throw std::invalid_argument(fmt::format("kdecl registry export: kernel '{}' has no 'key'", name->get<std::string>()));
    imported_kernel k{name->get<std::string>(), string_or(item, "set", "", what), gemm_key_from_json(item.at("key"))};
    if (!k.key.concrete())
      throw std::invalid_argument(fmt::format("kernel '{}': its key is not concrete (a field is a wildcard or 0)", k.name));
    if (auto expected = kernel_name(k.key); expected != k.name)
      throw std::invalid_argument(fmt::format("kernel '{}' does not match its key (the key names '{}')", k.name, expected));
    out.push_back(std::move(k));
  }
  return out;
}

}  // namespace kdecl
