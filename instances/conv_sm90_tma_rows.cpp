// Hopper (sm_90a) forward and backward-data convolutions of the stride1_rows specialization:
// unit strides, 3x3 filters, 64 input channels per group (forward: C/G; backward-data: K/G,
// dY's channels), as in U-Net's and ResNet's first stages. Output channels x pixels of one
// output row per wgmma, weights resident, input rows streamed
// (kernels/conv/cuda/sm90/conv_fwd_rows_sm90.cuh). Tiles of 64, 128 and 192 pixels of a row.
// The kernel's definition is included here only (conv_fwd_rows_sm90_decl.cuh says why).
#include "conv_sm90_tma_tiles.hpp"
#if defined(__CUDACC__) && !defined(__HIPCC__)
#include "kdecl/kernels/conv/cuda/sm90/conv_fwd_rows_sm90.cuh"
#endif

namespace {
using namespace kdecl::dsl;
// `pixels` output pixels of one row x 64 output channels, two consumers on alternate output rows,
// six input rows in the ring; 2-D channels-last.
constexpr auto rows(int pixels, kdecl::conv_direction dir, kdecl::dtype t) {
  return grouped_conv().direction(dir).pipeline(tma_wgmma).epilogue(direct).scheduler(pingpong)
      .vector_sizes(8, 8, 8).tile(pixels, 64, 64).warps(4, 1, 1).warp_tile(16, 64, 16).stages(6)
      .ndim(2).layout(kdecl::conv_layout::nhwgc).dtype(t).specialization(kdecl::conv_specialization::stride1_rows);
}
constexpr auto forward = kdecl::conv_direction::fwd;
constexpr auto backward_data = kdecl::conv_direction::bwd_data;
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_rows_fwd,
    targets(sm_90),
    rows(192, forward, fp16), rows(192, forward, bf16),
    rows(128, forward, fp16), rows(128, forward, bf16),
    rows(64, forward, fp16), rows(64, forward, bf16));

DECL_KERNEL_SET(conv_sm90_tma_rows_bwd_data,
    targets(sm_90),
    rows(192, backward_data, fp16), rows(192, backward_data, bf16),
    rows(128, backward_data, fp16), rows(128, backward_data, bf16),
    rows(64, backward_data, fp16), rows(64, backward_data, bf16));
