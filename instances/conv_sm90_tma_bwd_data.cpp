// Hopper (sm_90a) backward-data convolutions of any stride: each stride phase runs
// as the forward convolution of dy with its taps of the filter flipped and
// transposed, on the sm_90 forward kernel storing through a pixel map
// (kernels/conv/cuda/sm90/conv_bwd_data_sm90.cuh), with the tiles of
// conv_sm90_tma.cpp. C/G and K/G must be multiples of 8 (16-byte gathers).
// Tiles (128x256, 128x128, 128x64; the GEMM's N is C/G here): conv_sm90_tma_tiles.hpp.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto wide = kdecl_instances::conv_sm90_tma::wide(kdecl::conv_direction::bwd_data);
constexpr auto square = kdecl_instances::conv_sm90_tma::square(kdecl::conv_direction::bwd_data);
constexpr auto narrow = kdecl_instances::conv_sm90_tma::narrow(kdecl::conv_direction::bwd_data);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_bwd_data,
    targets(sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(3).layout(ndhwgc), square.dtype(bf16).ndim(3).layout(ndhwgc));
