// Hopper (sm_90a) backward-weight convolutions of any channel count: the input and dY
// read element by element into packed copies with C/G and K/G padded to a multiple of 8,
// the 16-byte kernel computing dW over the padded channels, and its first K/G x C/G copied
// out to dW (kernels/conv/cuda/channel_padded.cuh): the RGB stem (C = 3), a grey image
// (C = 1), odd channel counts, strides and pointers off 16 bytes. Only what the problem
// needs is copied. The 64x256 tile: the GEMM's M is K/G (32 to 96 in stems), its N
// taps x C/G.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto any_bwd_weight = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::bwd_weight);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_any_channels_bwd_weight,
    targets(sm_90),
    any_bwd_weight.dtype(fp16).ndim(2).layout(nhwgc), any_bwd_weight.dtype(bf16).ndim(2).layout(nhwgc),
    any_bwd_weight.dtype(fp16).ndim(3).layout(ndhwgc), any_bwd_weight.dtype(bf16).ndim(3).layout(ndhwgc));
