// gemm_kernel<K, backend::cuda>: routes a key to the CUDA kernel family of its pipeline.
//
// Kernel-set translation units are compiled for several -gencode targets at
// once; each family compiles its device code only for the arch its keys name
// (see the families' own guards), so one TU may hold sm_80 and sm_90 kernels.
#pragma once

#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/gemm/gemm_kernel.hpp"

namespace kdecl::kernels {

template <gemm_key K>
struct gemm_kernel<K, backend::cuda>
    : std::conditional_t<K.algo.pipe == pipeline::tma_wgmma, cuda::sm90::gemm<K>, cuda::sm80::gemm<K>> {
  static_assert(K.algo.pipe == pipeline::tma_wgmma || K.algo.pipe == pipeline::cp_async,
                "kdecl: no CUDA kernel family implements this pipeline");
};

}  // namespace kdecl::kernels
