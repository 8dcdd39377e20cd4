// Whether a launch of the sm_90 convolution kernel stores its output through TMA
// (the GEMM's TMA-store epilogue, epilogue_tma_store.cuh) and, if so, the output's
// map. The output is the GEMM's C as conv_consume_tiles writes it with rows ldc apart:
// `out.n` columns, `out.m` rows, `batch` matrices out.stride_c apart (the groups; for
// backward-weight's partials, ranges x groups). The GEMM's rule decides
// (c_storable_through_tma: 16-byte aligned base, strides and row length, no split-K,
// beta = 0), for keys with no D tensors or a fused epilogue's, read from global memory
// (tma_store_chunks::enabled_with_global_d); every other launch keeps the staged epilogue.
#pragma once

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/cuda/sm90/tensor_map.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_tma_store.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"

namespace kdecl::kernels::cuda::sm90 {

// `out`: C, m, n, ldc, stride_c, beta and sched.splits already set. Writes out.map_c and
// returns true where the output goes through TMA.
template <gemm_key G>
bool encode_output_tma_map(gemm_sm90_params& out, int batch) {
  using chunks = tma_store_chunks<sm90_config<G>>;
  if constexpr (!chunks::enabled_with_global_d) {
    return false;
  } else {
    if (out.d_via_tma ||
        !c_storable_through_tma(out.c, bits_of(G.sig.c) / 8, out.n, out.ldc, batch, out.stride_c, out.beta,
                                out.sched.splits))
      return false;
    const operand_view c{out.c, G.sig.c, out.n, out.m, batch, out.ldc, out.stride_c, chunks::cols, chunks::rows,
                         /*swizzle=*/false};
    return !encode_tensor_map(out.map_c, c).has_value();
  }
}

}  // namespace kdecl::kernels::cuda::sm90
