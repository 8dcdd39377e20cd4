// Per-device facts the host side of the CUDA kernels needs, read once per device,
// and the one check every kernel's device_reason() makes with them: the compute
// capability its code needs and the shared memory its blocks take.
#pragma once

#include <array>
#include <mutex>
#include <optional>
#include <string>

#include <cuda_runtime.h>

namespace kdecl::kernels::cuda {

struct device_info {
  int ordinal = -1;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  int max_smem_optin = 0;
};

// Facts of the current device; ordinal stays -1 when there is none.
inline device_info current_device_info() {
  static std::mutex guard;
  static std::array<device_info, 64> cache{};
  int dev = -1;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= static_cast<int>(cache.size())) {
    cudaGetLastError();  // clear the sticky-free error so callers see a clean state
    return {};
  }
  std::lock_guard<std::mutex> lock(guard);
  device_info& d = cache[dev];
  if (d.ordinal < 0) {
    cudaDeviceGetAttribute(&d.sm_count, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&d.cc_major, cudaDevAttrComputeCapabilityMajor, dev);
    cudaDeviceGetAttribute(&d.cc_minor, cudaDevAttrComputeCapabilityMinor, dev);
    cudaDeviceGetAttribute(&d.max_smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    d.ordinal = dev;
  }
  return d;
}

// What a kernel's code needs of a device: compute capability `major`.`minor`, or newer
// unless `exact` (sm_90a code such as wgmma and setmaxnreg runs on 9.0 only), and
// `smem_bytes` of shared memory per block.
struct device_need {
  int major = 8, minor = 0;
  bool exact = false;
  int smem_bytes = 0;
};

// Why device `d` cannot run a kernel named `who` that needs `need`, or nothing. A launch asks
// for the device once (current_device_info) and passes it to every check and plan: each
// cudaGetDevice is a runtime call of its own on the launch's path.
inline std::optional<std::string> device_shortfall(const std::string& who, const device_need& need,
                                                   const device_info& d) {
  if (d.ordinal < 0) return who + ": no CUDA device";
  const int have = d.cc_major * 10 + d.cc_minor, want = need.major * 10 + need.minor;
  const bool cc_unmet = need.exact ? have != want : have < want;
  if (!cc_unmet && need.smem_bytes <= d.max_smem_optin) return std::nullopt;  // the common case: no strings
  const std::string cc = std::to_string(need.major) + "." + std::to_string(need.minor);
  if (need.exact && have != want)
    return who + " is sm_" + std::to_string(want) + "a code: it needs a device of compute capability " + cc +
           ", this one is " + std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor);
  if (!need.exact && have < want)
    return who + " needs compute capability " + cc + " or newer, this device is " + std::to_string(d.cc_major) + "." +
           std::to_string(d.cc_minor);
  return who + " needs " + std::to_string(need.smem_bytes) + " bytes of shared memory, the device allows " +
         std::to_string(d.max_smem_optin);
}

// The same for the current device. Checked by run(), not why_not(), so that selection also
// works offline.
inline std::optional<std::string> device_shortfall(const std::string& who, const device_need& need) {
  return device_shortfall(who, need, current_device_info());
}

}  // namespace kdecl::kernels::cuda
