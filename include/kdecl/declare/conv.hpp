// DECL_KERNEL_SET for grouped convolution sets, with the grouped convolution kernels of the backend being
// compiled and no other operation's (see kdecl/declare/kernel_set.hpp).
#pragma once

#include "kdecl/declare/kernel_set.hpp"
#include "kdecl/kernels/conv/hip/conv_kernel_hip.hpp"
#include "kdecl/kernels/conv/host/conv_kernel.hpp"
#if defined(__CUDACC__) && !defined(__HIPCC__)
#include "kdecl/kernels/conv/cuda/conv_kernel_cuda.cuh"
#endif

namespace kdecl::detail {
template <>
struct instance_of_key<grouped_conv_key> {
  template <grouped_conv_key K, backend B>
  using type = conv_instance_of<K, B>;
};
}  // namespace kdecl::detail
