// Where the sm_90 forward convolution's fused epilogue reads its inputs: the GEMM's
// multi_d D tensors (conv_fwd_sm90_gemm_key), in the key's order, bias then residual.
//   bias:     one value per output channel; the GEMM's group g (a batch) starts at
//             g x its K/G (a merged-groups view's K/G: its groups' channels are adjacent),
//             and every output pixel (row) reads the same values: ldd 0.
//   residual: the output's shape and strides, so it is read at the output element's own
//             offset (params.d_at_c), whether rows are evenly strided or follow a pixel map
//             (the halo tiles).
#pragma once

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"

namespace kdecl::kernels::cuda::sm90 {

// `view`: the convolution whose groups are the GEMM's batches (merged_groups_view for merged groups).
template <grouped_conv_key K>
inline void set_fused_epilogue_inputs(gemm_sm90_params& out, const grouped_conv_problem& view,
                                      const grouped_conv_args& a) {
  int i = 0;
  out.d_at_c = 0;
  if constexpr (K.sig.fuse.bias) {
    out.d[i] = a.bias;
    out.ldd[i] = 0;
    out.stride_d[i] = view.k_per_group();
    ++i;
  }
  if constexpr (K.sig.fuse.residual) {
    out.d[i] = a.residual;
    out.d_at_c |= 1u << i;
  }
}

}  // namespace kdecl::kernels::cuda::sm90
