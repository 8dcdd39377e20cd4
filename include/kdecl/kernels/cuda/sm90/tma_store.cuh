// Device side of TMA stores: one tiled bulk copy of a box from shared memory into a
// 3-D tensor (inner, outer, batch) in global memory. Parts of the box outside the
// tensor are not written. Copies are tracked per thread in bulk groups: commit after
// issuing, then wait until at most N groups are still reading shared memory (the
// buffer may be rewritten) or still writing global memory (before the block exits).
// Shared-memory writes must be fenced into the async proxy (fence_proxy_async_shared)
// by the threads that made them, before the issuing thread copies them out.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only; libcuda is not linked)

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void tma_store_3d(const CUtensorMap* map, const void* smem_src, int inner, int outer,
                                             int batch) {
  asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(
                   reinterpret_cast<std::uint64_t>(map)),
               "r"(shared_address(smem_src)), "r"(inner), "r"(outer), "r"(batch)
               : "memory");
}

__device__ __forceinline__ void bulk_commit_group() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

// At most N of this thread's committed groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_group_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

// At most N of this thread's committed groups are still in flight (writes included).
template <int N>
__device__ __forceinline__ void bulk_wait_group() {
  asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
