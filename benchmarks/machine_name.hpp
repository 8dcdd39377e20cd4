// "<CPU model> (<N> hardware threads)": the machine a host-side benchmark ran on,
// recorded with its figures (docs/perf/).
#pragma once

#include <fstream>
#include <string>
#include <thread>

#include <fmt/format.h>

namespace kdecl::bench {

inline std::string machine_name() {
  std::string cpu = "unknown";
  std::ifstream info("/proc/cpuinfo");
  std::string line;
  while (std::getline(info, line))
    if (line.rfind("model name", 0) == 0) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  return fmt::format("{} ({} hardware threads)", cpu, std::thread::hardware_concurrency());
}

}  // namespace kdecl::bench
