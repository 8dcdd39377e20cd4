// The device a problem runs on, passed explicitly to the dispatcher: a kernel
// built for another arch is never chosen.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "kdecl/core/enums.hpp"

namespace kdecl {

struct device {
  arch_id arch = arch_id::host;
  int ordinal = 0;  // CUDA/HIP device index; 0 for host
  std::string description = "host CPU";
  // The GPU's memory clock (cudaDevAttrMemoryClockRate, MHz); 0: not known (the host, or an arch
  // named without a GPU, as `kdecl select --device sm_90`). The learned ranking models read it.
  int memory_clock_mhz = 0;

  static device host();
  backend kind() const { return backend_of(arch); }
};

// The host plus every GPU this build can drive (CUDA devices when built with
// CUDA). GPUs whose arch kdecl has no table for are left out and reported in
// `skipped` when given.
std::vector<device> available_devices(std::vector<std::string>* skipped = nullptr);

// The first GPU, or the host when there is none.
device default_device();

// How many bytes this process can still allocate on a device, and what limits
// it: for the host the smallest of MemAvailable (/proc/meminfo), the address
// space left under `ulimit -v` (RLIMIT_AS) and the cgroup's memory.max; for a
// CUDA device cudaMemGetInfo's free bytes. Tools check their plans against it
// before allocating (kdecl run/bench refuse what does not fit).
struct memory_headroom {
  std::size_t bytes = 0;
  std::string limited_by;  // e.g. "MemAvailable in /proc/meminfo", "ulimit -v"
};
memory_headroom memory_available(const device& dev);

// Maps a CUDA compute capability to our arch id; nullopt when unknown.
std::optional<arch_id> arch_from_compute_capability(int major, int minor);

}  // namespace kdecl
