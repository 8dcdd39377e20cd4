// A tiled bulk copy of a box of a 4-D tensor from global into shared memory,
// completing on an mbarrier (attention reads Q, K and V as (head dim, sequence,
// head, batch) tensors). As tma_load_3d: out-of-bounds parts of the box are
// filled with zeros and count towards the barrier's transaction bytes.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only; libcuda is not linked)

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void tma_load_4d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0,
                                            int c1, int c2, int c3) {
  asm volatile(
      "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6}], [%2];" ::"r"(shared_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3)
      : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
