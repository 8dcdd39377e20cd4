// Direct backward-data convolutions (pipeline direct_conv,
// kernels/conv/cuda/direct/direct_bwd_data.cuh): the input gradient of depthwise
// layers (C/G = K/G = 1), any stride without multiplying zeros; built for sm_80
// and sm_90. 2-D NHWGC and 1-D NWGC, 16-bit data. Dense layers of at most 8 input
// channels (stems) run on the narrow-channel kernel, whose definition is included
// here only (narrow_bwd_data_decl.cuh says why); 3-D stems reach it through the sm_90
// implicit GEMM keys.
#include "kdecl/declare/conv.hpp"
#if defined(__CUDACC__) && !defined(__HIPCC__)
#include "kdecl/kernels/conv/cuda/direct/narrow_bwd_data.cuh"
// Defined here for every 16-bit type: the sm_90 backward-data keys of 3-D layers call it too
// (stems of video models: conv_bwd_data_sm90.cuh), from other translation units.
template struct kdecl::kernels::cuda::direct::narrow_bwd_data<__half>;
template struct kdecl::kernels::cuda::direct::narrow_bwd_data<__nv_bfloat16>;
#endif

namespace {
using namespace kdecl::dsl;
constexpr auto bwd = grouped_conv().direction(bwd_data).pipeline(direct_conv);
// 16-byte vectors: 8x8 input pixels x 64 channels per block of 256 threads, 8 channels x 2 pixels per thread.
constexpr auto v16 = bwd.ndim(2).layout(nhwgc).tile(8, 8, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
// One element (any C): 8x8 x 64, 1 channel x 8 pixels per thread, 512 threads.
constexpr auto v2 = bwd.ndim(2).layout(nhwgc).tile(8, 8, 64).warps(16, 1, 1).warp_tile(8, 1, 1).vector_sizes(1, 1, 1);
// 1-D: one row of 64 pixels per block.
constexpr auto v16_1d = bwd.ndim(1).layout(nwgc).tile(1, 64, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8);
}  // namespace

DECL_KERNEL_SET(conv_direct_bwd_data,
    targets(sm_80, sm_90),
    v16.dtype(fp16), v16.dtype(bf16), v2.dtype(fp16), v2.dtype(bf16), v16_1d.dtype(fp16), v16_1d.dtype(bf16));
