// A tiled bulk copy of a box of a 5-D tensor from global into shared memory,
// completing on an mbarrier (the halo tiles of a convolution's input, kernels/conv/
// halo_tiles.hpp: channels, W, H, D, images). Coordinates are signed: the parts of
// the box outside the tensor (the convolution's padding) are filled with zeros and
// count towards the barrier's transaction bytes, as for tma_load_3d.
#pragma once

#include <cstdint>

#include <cuda.h>  // CUtensorMap (a type only; libcuda is not linked)

#include "kdecl/kernels/cuda/sm90/shared_address.cuh"

namespace kdecl::kernels::cuda::sm90 {

__device__ __forceinline__ void tma_load_5d(void* smem_dst, const CUtensorMap* map, std::uint64_t* bar, int c0,
                                            int c1, int c2, int c3, int c4) {
  asm volatile(
      "cp.async.bulk.tensor.5d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4, %5, %6, %7}], [%2];" ::"r"(shared_address(smem_dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(shared_address(bar)), "r"(c0), "r"(c1), "r"(c2), "r"(c3),
      "r"(c4)
      : "memory");
}

}  // namespace kdecl::kernels::cuda::sm90
