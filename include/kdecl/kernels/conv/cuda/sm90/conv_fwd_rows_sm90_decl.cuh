// The stride1_rows forward kernel, declared only. conv_kernel_cuda.cuh routes stride1_rows keys
// to it and conv_bwd_data_sm90.cuh runs it for unit-stride backward-data; its definition
// (conv_fwd_rows_sm90.cuh) is included only by the translation units that instantiate it
// (instances/conv_sm90_tma_rows.cpp), so the other kernel sets neither compile nor rebuild
// with it.
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"

namespace kdecl::kernels::cuda::sm90 {

template <grouped_conv_key K>
struct conv_fwd_rows;

}  // namespace kdecl::kernels::cuda::sm90
