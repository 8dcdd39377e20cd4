// Raising a kernel's dynamic shared-memory limit (cudaFuncAttributeMaxDynamicSharedMemorySize),
// once per kernel, device and new high (a launch that needs no more than an earlier one asks nothing).
//
// Why the kernel's address is the key and not a "done" flag in the kernel's class: nvcc gives
// each translation unit its own host stub (internal linkage) and its own module for a
// __global__ template, while a static in an inline function is one object for the whole
// program. Where two translation units instantiate one kernel class (an instance set and an
// any-channels wrapper around the same key), a class-level flag set by one unit's stub left the
// other unit's stub at the 48 KB default, and its launch failed with "invalid argument"
// (sm_90 backward-weight 64x256 on every 64-channel layer at batch >= 8, 2026-11-28).
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include <cuda_runtime.h>

namespace kdecl::kernels::cuda {

// On device `device` (its ordinal, from the launch's current_device_info()): raised to `bytes`
// where it was never raised that far, so that a launch asks the runtime (cudaFuncSetAttribute,
// a call of its own) only the first time; a kernel whose shared memory differs by problem (the
// direct convolutions) is raised as far as its largest launch so far, never lowered.
inline cudaError_t allow_dynamic_smem(const void* kernel, int bytes, int device) {
  static std::mutex guard;
  static std::map<std::pair<const void*, int>, int> raised;  // (host stub, device) -> bytes allowed
  std::lock_guard<std::mutex> lock(guard);
  int& allowed = raised[{kernel, device}];
  if (bytes <= allowed) return cudaSuccess;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess) allowed = bytes;
  return err;
}

// On the current device.
inline cudaError_t allow_dynamic_smem(const void* kernel, int bytes) {
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  return allow_dynamic_smem(kernel, bytes, device);
}

template <class... Params>
cudaError_t allow_dynamic_smem(void (*kernel)(Params...), int bytes) {
  return allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}
template <class... Params>
cudaError_t allow_dynamic_smem(void (*kernel)(Params...), int bytes, int device) {
  return allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes, device);
}

}  // namespace kdecl::kernels::cuda
