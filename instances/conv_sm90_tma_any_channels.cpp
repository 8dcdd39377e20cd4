// Hopper (sm_90a) forward and backward-data convolutions of any channel count: every
// operand taken element by element (vector 1), so neither C/G nor K/G need be a multiple
// of 8: the RGB stem (C = 3), a grey image (C = 1), odd filter counts, strides and pointers
// off 16 bytes. The operands whose channels are padded (or whose pointers or strides the
// 16-byte kernel cannot take) are copied into packed buffers with C/G and K/G padded to a
// multiple of 8, the 16-byte kernel runs on them, and forward's y is copied back out
// (kernels/conv/cuda/channel_padded.cuh); backward-data reads the weights through its
// flipped copy and stores dx through a pixel map anyway (sm90/conv_bwd_data_sm90.cuh),
// so it copies only dY (and W where K/G is padded). The 128x64 tile: the GEMM's N is K/G
// forward (32 to 96 in stems) and C/G backward-data (1 or 3).
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto any_fwd = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::fwd);
constexpr auto any_bwd_data = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::bwd_data);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_any_channels,
    targets(sm_90),
    any_fwd.dtype(fp16).ndim(2).layout(nhwgc), any_fwd.dtype(bf16).ndim(2).layout(nhwgc),
    any_fwd.dtype(fp16).ndim(3).layout(ndhwgc), any_fwd.dtype(bf16).ndim(3).layout(ndhwgc),
    any_bwd_data.dtype(fp16).ndim(2).layout(nhwgc), any_bwd_data.dtype(bf16).ndim(2).layout(nhwgc),
    any_bwd_data.dtype(fp16).ndim(3).layout(ndhwgc), any_bwd_data.dtype(bf16).ndim(3).layout(ndhwgc));
