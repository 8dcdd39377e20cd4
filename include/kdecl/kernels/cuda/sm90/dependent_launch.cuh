// Programmatic dependent launch (sm_90): a kernel launched with programmatic stream
// serialization may start while the kernel before it in the stream is still running, once
// every block of that kernel has called allow_dependent_launch() (or exited). It then must not
// touch global memory before wait_for_prerequisite_grids(), which returns once the kernels
// before it have completed and their writes are visible. Used where a small pre-pass (the
// backward-data's flipped weights, the zeroed pixels, the padded channel copies) comes right
// before a persistent kernel: the persistent kernel's launch, shared-memory barrier set-up and
// tensor-map prefetch run under the pre-pass instead of after it; and by the sm_90 GEMM for its
// short launches (gemm_sm90.cuh, launches_as_dependent). Both calls are no-ops in a kernel
// launched without the attribute, and below sm_90.
#pragma once

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/runtime/dependent_launch.hpp"

namespace kdecl::kernels::cuda {

__device__ __forceinline__ void wait_for_prerequisite_grids() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

__device__ __forceinline__ void allow_dependent_launch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
}

// The launch attribute that lets a kernel start under the one before it (sm_90 and later;
// elsewhere the launch is an ordinary one; and not while runtime/dependent_launch.hpp's switch is
// off). `attr` is filled; returns the attribute count (0 or 1).
inline unsigned dependent_launch_attribute(cudaLaunchAttribute& attr) {
  attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  return kdecl::dependent_launch_enabled().load(std::memory_order_relaxed) && current_device_info().cc_major >= 9
             ? 1u
             : 0u;
}

}  // namespace kdecl::kernels::cuda
