// Per-device facts the host side of the sm90 kernels needs, read once per device.
#pragma once

#include <array>
#include <mutex>

#include <cuda_runtime.h>

namespace kdecl::kernels::cuda::sm90 {

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

}  // namespace kdecl::kernels::cuda::sm90
