// TMA multicast (sm_90 thread-block clusters): one block copies a box from global
// memory into the same shared-memory offset of every block named in `cta_mask`,
// and completes the transaction bytes on the mbarrier at the same offset in each
// of them. Two blocks that need the same operand tile each load half of it and
// send it to both, halving what the operand costs in L2 bandwidth.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only; libcuda is not linked)

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void tma_load_3d_multicast(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar,
                                                      int inner, int outer, int batch, std::uint16_t cta_mask) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(shared_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(bar)), "r"(inner), "r"(outer), "r"(batch),
      "h"(cta_mask)
      : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
