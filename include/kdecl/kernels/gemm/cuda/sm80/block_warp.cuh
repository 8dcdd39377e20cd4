// The warp the cp_async kernels (GEMM and convolutions) compute with: mma.sync
// (tc_warp) for tensor-core types, tf32 included, or FFMA (simt_warp) for exact fp32.
// Both take compute_tile(a_stage, b_stage) and hand out accumulators by for_each.
#pragma once

#include <type_traits>

#include "kdecl/kernels/gemm/cuda/sm80/warp_mma.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/warp_simt.cuh"

namespace kdecl::kernels::cuda::sm80 {

template <class Cfg>
using block_warp = std::conditional_t<Cfg::simt, simt_warp<Cfg>, tc_warp<Cfg>>;

}  // namespace kdecl::kernels::cuda::sm80
