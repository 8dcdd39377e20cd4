// "1,8,64" -> {1, 8, 64}: the list options of the benchmark programs (--batch, --kv). Stops at the
// first character that does not start a number.
#pragma once

#include <cstdlib>
#include <vector>

namespace kdecl_bench {

inline std::vector<long> parse_list(const char* s) {
  std::vector<long> v;
  for (const char* p = s; *p;) {
    char* end = nullptr;
    v.push_back(std::strtol(p, &end, 10));
    if (end == p) break;
    p = *end == ',' ? end + 1 : end;
  }
  return v;
}

}  // namespace kdecl_bench
