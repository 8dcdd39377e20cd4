#include "arch_summary.hpp"

#include <fmt/format.h>

namespace kdecl::cli {

std::string arch_summary(const nlohmann::json& a) {
  std::string out = fmt::format("{}  ({}, {} backend) {}\n", a["arch"].get<std::string>(),
                                a["family"].get<std::string>(), a["backend"].get<std::string>(),
                                a["description"].get<std::string>());
  out += fmt::format("  warp size {}, up to {} threads per block, {} KiB shared memory per block\n",
                     a["warp_size"].get<int>(), a["max_threads_per_block"].get<int>(),
                     a["smem_per_block"].get<int>() / 1024);
  if (a.contains("reference_part") && !a["reference_part"]["name"].get<std::string>().empty())
    out += fmt::format("  reference part {}: {} {}, {:.0f} GB/s\n", a["reference_part"]["name"].get<std::string>(),
                       a["reference_part"]["sm_count"].get<int>(), a["backend"] == "hip" ? "CUs" : "SMs",
                       a["reference_part"]["mem_bandwidth_gbs"].get<double>());
  for (const auto& p : a["pipelines"]) {
    std::string dtypes;
    for (const auto& o : p["dtypes"]) {
      std::string d = o["a"].get<std::string>();
      if (o["b"] != o["a"]) d += "x" + o["b"].get<std::string>();
      if (o["compute"] != o["a"]) d += "(" + o["compute"].get<std::string>() + ")";
      dtypes += (dtypes.empty() ? "" : " ") + d;
    }
    out += fmt::format("  pipeline {:<13} stages {}..{} (default {})  dtypes: {}\n", p["pipeline"].get<std::string>(),
                       p["stages"]["min"].get<int>(), p["stages"]["max"].get<int>(), p["stages"]["default"].get<int>(),
                       dtypes);
  }
  return out;
}

}  // namespace kdecl::cli
