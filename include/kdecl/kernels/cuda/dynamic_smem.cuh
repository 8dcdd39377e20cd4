// Raising a kernel's dynamic shared-memory limit (cudaFuncAttributeMaxDynamicSharedMemorySize),
// once per kernel and device.
//
// Why the kernel's address is the key and not a "done" flag in the kernel's class: nvcc gives
// each translation unit its own host stub (internal linkage) and its own module for a
// __global__ template, while a static in an inline function is one object for the whole
// program. Where two translation units instantiate one kernel class (an instance set and an
// any-channels wrapper around the same key), a class-level flag set by one unit's stub left the
// other unit's stub at the 48 KB default, and its launch failed with "invalid argument"
// (sm_90 backward-weight 64x256 on every 64-channel layer at batch >= 8, 2026-11-28).
#pragma once

#include <mutex>
#include <set>
#include <utility>

#include <cuda_runtime.h>

namespace kdecl::kernels::cuda {

inline cudaError_t allow_dynamic_smem(const void* kernel, int bytes) {
  static std::mutex guard;
  static std::set<std::pair<const void*, int>> allowed;  // (host stub, device)
  int device = 0;
  if (const cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  std::lock_guard<std::mutex> lock(guard);
  if (allowed.count({kernel, device}) != 0) return cudaSuccess;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess) allowed.insert({kernel, device});
  return err;
}

template <class... Params>
cudaError_t allow_dynamic_smem(void (*kernel)(Params...), int bytes) {
  return allow_dynamic_smem(reinterpret_cast<const void*>(kernel), bytes);
}

}  // namespace kdecl::kernels::cuda
