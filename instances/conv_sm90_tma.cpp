// Hopper (sm_90a) forward convolutions: the implicit GEMM of each group on the
// tma_wgmma GEMM's wgmma consumers, persistent scheduler and cshuffle epilogue,
// the input and the weights gathered by a cp.async producer warpgroup into the
// swizzled ring (kernels/conv/cuda/sm90/). 16-bit data, C/G a multiple of 8
// (16-byte gathers); layers with fewer channels per group go to the cp_async
// (conv_cp_async.cpp) and direct (conv_direct*.cpp) sets.
// Tiles (128x256, 128x128, 128x64): conv_sm90_tma_tiles.hpp.
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto wide = kdecl_instances::conv_sm90_tma::wide(kdecl::conv_direction::fwd);
constexpr auto square = kdecl_instances::conv_sm90_tma::square(kdecl::conv_direction::fwd);
constexpr auto narrow = kdecl_instances::conv_sm90_tma::narrow(kdecl::conv_direction::fwd);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fwd,
    targets(sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    square.dtype(fp16).ndim(2).layout(nhwgc), square.dtype(bf16).ndim(2).layout(nhwgc),
    narrow.dtype(fp16).ndim(2).layout(nhwgc), narrow.dtype(bf16).ndim(2).layout(nhwgc));
