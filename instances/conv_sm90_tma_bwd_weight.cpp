// Hopper (sm_90a) backward-weight convolutions: dW = dY^T x im2col(input) as the crr
// GEMM of each group on the gathering sm_90 convolution kernel, the long depth
// (N x output pixels) split over clusters and fp32 partials
// (kernels/conv/cuda/sm90/conv_bwd_weight_sm90.cuh). C/G and K/G must be multiples
// of 8 (16-byte gathers); other layers go to the cp_async and direct kernels.
// M is K/G, N is taps x C/G (conv_sm90_tma_tiles.hpp): 128x256 and 128x128 tiles, and
// 64x256 for 64-channel layers, which a 128-row tile would half waste; 3-D: 128x128 and
// 128x256 (measured per SM on an H200: 3.0 TFLOP/s on 128x128 tiles, 4.5 on 128x256).
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto wide = kdecl_instances::conv_sm90_tma::wide(kdecl::conv_direction::bwd_weight);
constexpr auto square = kdecl_instances::conv_sm90_tma::square(kdecl::conv_direction::bwd_weight);
constexpr auto short_m = kdecl_instances::conv_sm90_tma::short_m(kdecl::conv_direction::bwd_weight);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_bwd_weight,
    targets(sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    short_m.dtype(fp16).ndim(2).layout(nhwgc), short_m.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc),
    wide.dtype(fp16).ndim(3).layout(ndhwgc), wide.dtype(bf16).ndim(3).layout(ndhwgc));
