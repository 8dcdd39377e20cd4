// DECL_KERNEL_SET for attention sets, with the attention kernels of the backend being
// compiled and no other operation's (see kdecl/declare/kernel_set.hpp).
#pragma once

#include "kdecl/declare/kernel_set.hpp"
#include "kdecl/kernels/fmha/host/fmha_host.hpp"
#include "kdecl/kernels/fmha/host/fmha_paged_kernel_host.hpp"
#if defined(__HIPCC__)
#include "kdecl/kernels/fmha/hip/fmha_kernel_hip.hpp"
#include "kdecl/kernels/fmha/hip/fmha_paged_hip.hpp"
#elif defined(__CUDACC__)
#include "kdecl/kernels/fmha/cuda/decode/fmha_paged_kernel_cuda.cuh"
#include "kdecl/kernels/fmha/cuda/fmha_kernel_cuda.cuh"
#endif

namespace kdecl::detail {
template <>
struct instance_of_key<fmha_key> {
  // The serving families (a paged cache) have their own problem type and kernel contract.
  template <fmha_key K, backend B>
  using type = std::conditional_t<is_paged_family(K.sig.family), fmha_paged_instance_of<K, B>, fmha_instance_of<K, B>>;
};
}  // namespace kdecl::detail
