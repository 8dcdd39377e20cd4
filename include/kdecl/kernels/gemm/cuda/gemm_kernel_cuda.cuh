// gemm_kernel<K, backend::cuda>: routes a key to the CUDA kernel family of its pipeline.
//
// Kernel-set translation units are compiled for several -gencode targets at
// once; each family compiles its device code only for the arch its keys name
// (see the families' own guards), so one TU may hold sm_80 and sm_90 kernels.
#pragma once

#include "kdecl/kernels/gemm/cuda/gemv/gemv.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/column_major_c.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/gemm/gemm_kernel.hpp"

namespace kdecl::kernels {

// The sm_90 family's kernel for a key: its own, or for column-major C the row-major kernel
// on the transposed problem (sm90/column_major_c.cuh).
template <gemm_key K>
using sm90_gemm_for = std::conditional_t<K.sig.lay.c == layout::col, cuda::sm90::gemm_column_major_c<K>,
                                         cuda::sm90::gemm<K>>;

// The kernel family of a key's pipeline (naming a family's template does not instantiate it).
template <gemm_key K>
using cuda_gemm_family =
    std::conditional_t<K.algo.pipe == pipeline::tma_wgmma, sm90_gemm_for<K>,
                       std::conditional_t<K.algo.pipe == pipeline::gemv, cuda::gemv::gemm<K>, cuda::sm80::gemm<K>>>;

template <gemm_key K>
struct gemm_kernel<K, backend::cuda> : cuda_gemm_family<K> {
  static_assert(K.algo.pipe == pipeline::tma_wgmma || K.algo.pipe == pipeline::cp_async || K.algo.pipe == pipeline::gemv,
                "kdecl: no CUDA kernel family implements this pipeline");
};

}  // namespace kdecl::kernels
