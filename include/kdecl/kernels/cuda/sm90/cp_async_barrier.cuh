// cp.async feeding an mbarrier ring, for operands TMA cannot fetch (a gather).
// cp.async writes shared memory through the generic proxy and wgmma reads it
// through the async proxy: a producer thread that has waited for its copies
// fences the proxies before it arrives on the stage's "full" barrier.
#pragma once

#include <cstdint>

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Orders shared-memory writes of the generic proxy (cp.async that this thread has
// waited for, st.shared) before later async-proxy accesses (wgmma) that a barrier
// this thread arrives on afterwards hands them to.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
