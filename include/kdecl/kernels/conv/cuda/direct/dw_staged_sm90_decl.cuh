// The TMA-staged depthwise forward kernel (direct_conv keys with stages 2), declared only.
// conv_kernel_cuda.cuh routes those keys to it; its definition (dw_staged_sm90.cuh) is
// included only by the translation unit that instantiates it (instances/conv_direct_dw_staged.cpp),
// so the other direct sets neither compile nor rebuild with it.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"

namespace kdecl::kernels::cuda::direct {

template <grouped_conv_key K>
struct conv_dw_staged_fwd;

}  // namespace kdecl::kernels::cuda::direct
