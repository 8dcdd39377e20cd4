#include "memory_check.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace kdecl::cli {

std::string format_bytes(std::size_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = double(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  return fmt::format("{:.{}f} {}", v, v < 10 ? 2 : v < 100 ? 1 : 0, units[u]);
}

std::string describe(const memory_parts& parts) {
  std::string out;
  for (const auto& [what, bytes] : parts) {
    if (bytes == 0) continue;
    out += fmt::format("{}{} {}", out.empty() ? "" : ", ", what, format_bytes(bytes));
  }
  return out;
}

void require_memory(const std::string& what, std::size_t needed, const memory_parts& parts,
                    const memory_headroom& have, const std::string& advice) {
  if (needed <= have.bytes) return;
  throw std::invalid_argument(fmt::format("{} needs {} ({}), but only {} is available ({}){}", what,
                                          format_bytes(needed), describe(parts), format_bytes(have.bytes),
                                          have.limited_by, advice.empty() ? "" : "; " + advice));
}

}  // namespace kdecl::cli
