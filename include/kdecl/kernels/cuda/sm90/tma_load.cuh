// Device side of the tensor memory accelerator: one tiled bulk copy of a box of
// a 3-D tensor (inner, outer, batch) from global into shared memory, completing
// on an mbarrier. Out-of-bounds parts of the box are filled with zeros and still
// count towards the barrier's transaction bytes.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only; libcuda is not linked)

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void tma_load_3d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar,
                                            int inner, int outer, int batch) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5}], [%2];" ::"r"(shared_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(bar)), "r"(inner), "r"(outer), "r"(batch)
      : "memory");
}

// Pulls the descriptor itself into the cache ahead of the first copy.
__device__ __forceinline__ void tma_prefetch_descriptor(const CUtensorMap* map) {
  asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(map)) : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
