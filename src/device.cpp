#include "kdecl/runtime/device.hpp"

#include <fmt/format.h>

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
    out.push_back(device{*arch, i, fmt::format("{} (CUDA device {})", prop.name, i)});
  }
#else
  (void)skipped;
#endif
  return out;
}

device default_device() {
  auto all = available_devices();
  return all.size() > 1 ? all[1] : all[0];
}

}  // namespace kdecl
