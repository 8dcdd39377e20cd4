// DECL_KERNEL_SET for GEMM sets, with the GEMM kernels of the backend being
// compiled and no other operation's (see kdecl/declare/kernel_set.hpp).
#pragma once

#include "kdecl/declare/kernel_set.hpp"
#include "kdecl/kernels/gemm/host/gemm_kernel.hpp"
#if defined(__HIPCC__)
#include "kdecl/kernels/gemm/hip/gemm_kernel_hip.hpp"
#elif defined(__CUDACC__)
#include "kdecl/kernels/gemm/cuda/gemm_kernel_cuda.cuh"
#endif

namespace kdecl::detail {
template <>
struct instance_of_key<gemm_key> {
  template <gemm_key K, backend B>
  using type = gemm_instance_of<K, B>;
};
}  // namespace kdecl::detail
