// Export of the arch tables: JSON (for tools and `kdecl arch --json`) and a
// Markdown rendering (docs/arch_tables.md and `kdecl arch`).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "kdecl/core/enums.hpp"

namespace kdecl::arch {

// Every table of one target: hardware facts, raw CK / instruction tables, and
// what each pipeline offers there.
nlohmann::json arch_to_json(arch_id a);

// {"targets": [arch_to_json(...) for every arch_id], "ck_tile": {arch-independent CK tables},
//  "fmha": {...}}
nlohmann::json all_arch_json();

// All tables as Markdown (the content of docs/arch_tables.md).
std::string arch_to_markdown();

}  // namespace kdecl::arch
