#include "kdecl/runtime/device.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include <fmt/format.h>

#if defined(__linux__)
#include <sys/resource.h>
#include <unistd.h>
#endif

#if KDECL_WITH_CUDA_RUNTIME
#include <cuda_runtime.h>
#endif

namespace kdecl {

device device::host() { return device{}; }

std::optional<arch_id> arch_from_compute_capability(int major, int minor) {
  if (major == 8 && minor == 0) return arch_id::sm_80;
  if (major == 8 && minor == 6) return arch_id::sm_86;
  if (major == 8 && minor == 9) return arch_id::sm_89;
  if (major == 9 && minor == 0) return arch_id::sm_90;
  return std::nullopt;
}

std::vector<device> available_devices(std::vector<std::string>* skipped) {
  std::vector<device> out{device::host()};
#if KDECL_WITH_CUDA_RUNTIME
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    count = 0;
  }
  for (int i = 0; i < count; ++i) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, i) != cudaSuccess) continue;
    auto arch = arch_from_compute_capability(prop.major, prop.minor);
    if (!arch) {
      if (skipped)
        skipped->push_back(fmt::format("CUDA device {} ({}, compute capability {}.{}): no kdecl arch table",
                                       i, prop.name, prop.major, prop.minor));
      continue;
    }
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, i) != cudaSuccess) {
      cudaGetLastError();
      khz = 0;
    }
    out.push_back(device{*arch, i, fmt::format("{} (CUDA device {})", prop.name, i), khz / 1000});
  }
#else
  (void)skipped;
#endif
  return out;
}

namespace {

// The value of `key` (in kB) in a /proc file such as /proc/meminfo or /proc/self/status.
std::optional<std::size_t> proc_kb(const char* file, const std::string& key) {
  std::ifstream in(file);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) {
      std::istringstream fields(line.substr(key.size() + 1));
      std::size_t kb = 0;
      if (fields >> kb) return kb * 1024;
    }
  return std::nullopt;
}

// A number in a one-line file (cgroup v2 memory.max / memory.current); nullopt for "max" or absent.
std::optional<std::size_t> number_in(const char* file) {
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") return std::nullopt;
  try {
    return std::size_t(std::stoull(text));
  } catch (...) {
    return std::nullopt;
  }
}

memory_headroom host_memory_available() {
  memory_headroom best{std::numeric_limits<std::size_t>::max(), "no limit found"};
  auto consider = [&](std::optional<std::size_t> bytes, const char* source) {
    if (bytes && *bytes < best.bytes) best = {*bytes, source};
  };
#if defined(__linux__)
  consider(proc_kb("/proc/meminfo", "MemAvailable"), "MemAvailable in /proc/meminfo");
  if (rlimit lim{}; getrlimit(RLIMIT_AS, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY) {
    const std::size_t used = proc_kb("/proc/self/status", "VmSize").value_or(0);
    consider(lim.rlim_cur > used ? std::size_t(lim.rlim_cur - used) : 0, "the address space left under ulimit -v");
  }
  if (auto max = number_in("/sys/fs/cgroup/memory.max")) {
    const std::size_t used = number_in("/sys/fs/cgroup/memory.current").value_or(0);
    consider(*max > used ? *max - used : 0, "the cgroup's memory.max");
  }
  if (best.limited_by == "no limit found") {
    const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) consider(std::size_t(pages) * std::size_t(page), "free physical pages");
  }
#endif
  return best;
}

}  // namespace

memory_headroom memory_available(const device& dev) {
  if (dev.kind() == backend::host) return host_memory_available();
#if KDECL_WITH_CUDA_RUNTIME
  if (dev.kind() == backend::cuda && dev.ordinal >= 0) {
    std::size_t free = 0, total = 0;
    if (cudaSetDevice(dev.ordinal) == cudaSuccess && cudaMemGetInfo(&free, &total) == cudaSuccess)
      return {free, fmt::format("free memory of {} (cudaMemGetInfo)", dev.description)};
    cudaGetLastError();
  }
#endif
  return {0, fmt::format("no runtime in this build can query {}", dev.description)};
}

device default_device() {
  auto all = available_devices();
  return all.size() > 1 ? all[1] : all[0];
}

}  // namespace kdecl
