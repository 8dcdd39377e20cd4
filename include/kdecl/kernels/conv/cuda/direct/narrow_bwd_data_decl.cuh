// The narrow-channel backward-data kernel's launch (stems on tensor cores: narrow_bwd_data.cuh,
// kernels/conv/narrow_bwd_data_plan.hpp), declared only. The direct backward-data kernels
// (direct_bwd_data.cuh) call it; its definition is included only by the translation unit that
// instantiates them (instances/conv_direct_bwd_data.cpp), so the other convolution sets, which
// all see direct_bwd_data.cuh through conv_kernel_cuda.cuh, neither compile nor rebuild with it.
#pragma once

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"

namespace kdecl::kernels::cuda::direct {

template <class T>
struct narrow_bwd_data {
  // `vector16`: dy staged in 16-byte copies (the caller checked K/G, the strides and dy's alignment).
  static status run(const grouped_conv_problem& p, const grouped_conv_args& a, bool vector16, void* stream);
};

}  // namespace kdecl::kernels::cuda::direct
