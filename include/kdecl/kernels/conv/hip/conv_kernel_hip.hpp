// conv_kernel<K, backend::hip>: the HIP backend's side of the convolution kernel contract
// (kernels/conv/conv_kernel.hpp), forwarding to kdecl::kernels::hip::conv<K> (conv_hip.hpp).
// Empty unless __HIPCC__ (the kernels are HIP code), as gemm_kernel_hip.hpp.
#pragma once

#if defined(__HIPCC__)

#include "kdecl/kernels/conv/hip/epilogue_pass.hpp"
#include "kdecl/kernels/conv/conv_kernel.hpp"
#include "kdecl/kernels/conv/hip/conv_hip.hpp"

namespace kdecl::kernels {

template <grouped_conv_key K>
struct conv_kernel<K, backend::hip> : hip::conv<K> {};

}  // namespace kdecl::kernels

#endif  // __HIPCC__
