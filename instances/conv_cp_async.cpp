// Forward convolutions on the cp.async + mma.sync pipeline (sm_80 family; also
// built for sm_90): the implicit GEMM of each group with the im2col operand
// gathered by cp.async (kernels/conv/cuda/sm80/). 16-bit data, channels-last.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto conv = grouped_conv().direction(fwd).pipeline(cp_async).epilogue(cshuffle).stages(4);
// Dense layers: 128x128x32 blocks of 2x2 warps, each a 64x64 warp tile (16-byte vectors).
constexpr auto wide = conv.tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16);
// Grouped layers with few output channels per group: a 32-wide N tile of 4x1 warps.
constexpr auto narrow_n = conv.tile(128, 32, 32).warps(4, 1, 1).warp_tile(32, 32, 16);
// Channels per group that are multiples of 2 only: 4-byte vectors on 64x64 tiles.
constexpr auto narrow_vec = conv.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 16).vector_sizes(2, 2, 2);
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fwd,
    targets(sm_80, sm_90),
    wide.dtype(fp16).ndim(2).layout(nhwgc), wide.dtype(bf16).ndim(2).layout(nhwgc),
    narrow_n.dtype(fp16).ndim(2).layout(nhwgc), narrow_n.dtype(bf16).ndim(2).layout(nhwgc),
    narrow_vec.dtype(fp16).ndim(2).layout(nhwgc), narrow_vec.dtype(bf16).ndim(2).layout(nhwgc),
    wide.dtype(fp16).ndim(3).layout(ndhwgc), wide.dtype(bf16).ndim(3).layout(ndhwgc),
    narrow_vec.dtype(fp16).ndim(3).layout(ndhwgc), narrow_vec.dtype(bf16).ndim(3).layout(ndhwgc),
    wide.dtype(fp16).ndim(1).layout(nwgc), wide.dtype(bf16).ndim(1).layout(nwgc));
