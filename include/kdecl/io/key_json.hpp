// JSON form of kernel keys and of the registry: export and import round-trip.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/registry/registry.hpp"

namespace kdecl {

nlohmann::json to_json(const gemm_key& key);
// Throws std::invalid_argument naming the field and value it cannot read.
gemm_key gemm_key_from_json(const nlohmann::json& j);

// {"format": "kdecl-registry", "version": 1, "kernels": [{"name", "op", "set", "key"}...]}
nlohmann::json export_registry(const registry& reg);

struct imported_kernel {
  std::string name;
  std::string set;
  gemm_key key;
};
// Reads what export_registry() wrote; checks every name against its key.
std::vector<imported_kernel> import_registry(const nlohmann::json& j);

}  // namespace kdecl
