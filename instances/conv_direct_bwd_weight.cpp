// Direct depthwise backward-weight convolutions (pipeline direct_conv,
// kernels/conv/cuda/direct/direct_bwd_weight.cuh): the filter gradient of depthwise
// layers (C/G = K/G = 1), summed over N x output pixels in row ranges (a fixed-order,
// deterministic reduction through the dispatcher's workspace); built for sm_80 and
// sm_90. 2-D NHWGC and 1-D NWGC, 16-bit data.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto bwd = grouped_conv().direction(bwd_weight).pipeline(direct_conv);
// 16-byte vectors, 4 pixels per thread, 128 threads: 32 channels (4 lanes x 32 workers) or
// 64 channels (8 lanes x 16 workers) per block.
constexpr auto v16 = bwd.ndim(2).layout(nhwgc).tile(4, 32, 32).warps(4, 1, 1).warp_tile(4, 8, 1).vector_sizes(8, 1, 8);
constexpr auto v16_c64 = bwd.ndim(2).layout(nhwgc).tile(4, 16, 64).warps(4, 1, 1).warp_tile(4, 8, 1).vector_sizes(8, 1, 8);
// One element (any C): 32 channels x 4 workers, 4 pixels per thread.
constexpr auto v2 = bwd.ndim(2).layout(nhwgc).tile(1, 16, 32).warps(4, 1, 1).warp_tile(4, 1, 1).vector_sizes(1, 1, 1);
// 1-D.
constexpr auto v16_1d = bwd.ndim(1).layout(nwgc).tile(1, 128, 32).warps(4, 1, 1).warp_tile(4, 8, 1).vector_sizes(8, 1, 8);
}  // namespace

DECL_KERNEL_SET(conv_direct_bwd_weight,
    targets(sm_80, sm_90),
    v16.dtype(fp16), v16.dtype(bf16), v16_c64.dtype(fp16), v16_c64.dtype(bf16), v2.dtype(fp16), v2.dtype(bf16),
    v16_1d.dtype(fp16), v16_1d.dtype(bf16));
