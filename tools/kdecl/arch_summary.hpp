// The human-readable form of `kdecl arch`: one short block per arch, read from
// the same JSON export scripts use, so the text never disagrees with it.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace kdecl::cli {

std::string arch_summary(const nlohmann::json& arch);

}  // namespace kdecl::cli
