// fmha_kernel<K, backend::cuda>: routes a key to the CUDA kernel family of its pipeline:
// mma_sync (sm_80 and sm_90, kernels/fmha/cuda/sm80/) and tma_wgmma_ws (sm_90a,
// kernels/fmha/cuda/sm90/).
#pragma once

#include <type_traits>

#include "kdecl/kernels/fmha/cuda/sm80/fmha_sm80.cuh"
#include "kdecl/kernels/fmha/cuda/sm90/fmha_sm90.cuh"
#include "kdecl/kernels/fmha/fmha_kernel.hpp"

namespace kdecl::kernels {

namespace detail {
template <fmha_key K>
using cuda_fmha_family = std::conditional_t<K.algo.pipe == fmha_pipeline::tma_wgmma_ws, cuda::sm90::fmha<K>,
                                            cuda::sm80::fmha<K>>;
}  // namespace detail

template <fmha_key K>
struct fmha_kernel<K, backend::cuda> : detail::cuda_fmha_family<K> {
  static_assert(K.algo.pipe == fmha_pipeline::mma_sync || K.algo.pipe == fmha_pipeline::tma_wgmma_ws,
                "kdecl: no CUDA attention kernel implements this pipeline");
};

}  // namespace kdecl::kernels
