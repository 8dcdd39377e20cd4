// Backward convolutions on the cp.async + mma.sync pipeline (sm_80 family; also
// built for sm_90): bwd_data as one implicit GEMM per stride phase (no zero taps),
// bwd_weight as an implicit GEMM split over N x output pixels with a
// deterministic fp32 reduction (kernels/conv/cuda/sm80/). 16-bit data, channels-last.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto data = grouped_conv().direction(bwd_data).pipeline(cp_async).epilogue(cshuffle).stages(4);
constexpr auto weight = grouped_conv().direction(bwd_weight).pipeline(cp_async).epilogue(cshuffle).stages(4);
// Dense layers: 128x128x32 blocks of 2x2 warps, each a 64x64 warp tile (16-byte vectors).
constexpr auto data_wide = data.tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16);
constexpr auto weight_wide = weight.tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16);
// Few channels on the GEMM's N side (bwd_data: C/G = 64) or M side (bwd_weight: K/G = 64): 64-wide tiles.
constexpr auto data_n64 = data.tile(128, 64, 32).warps(2, 2, 1).warp_tile(64, 32, 16);
constexpr auto weight_m64 = weight.tile(64, 128, 32).warps(2, 2, 1).warp_tile(32, 64, 16);
// Channels per group that are multiples of 2 only: 4-byte vectors on 64x64 tiles.
constexpr auto data_narrow = data.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 16).vector_sizes(2, 2, 2);
constexpr auto weight_narrow = weight.tile(64, 64, 32).warps(2, 2, 1).warp_tile(32, 32, 16).vector_sizes(2, 2, 2);
}  // namespace

DECL_KERNEL_SET(conv_cp_async_bwd_data,
    targets(sm_80, sm_90),
    data_wide.dtype(fp16).ndim(2).layout(nhwgc), data_wide.dtype(bf16).ndim(2).layout(nhwgc),
    data_n64.dtype(fp16).ndim(2).layout(nhwgc), data_n64.dtype(bf16).ndim(2).layout(nhwgc),
    data_narrow.dtype(fp16).ndim(2).layout(nhwgc), data_narrow.dtype(bf16).ndim(2).layout(nhwgc),
    data_wide.dtype(fp16).ndim(3).layout(ndhwgc), data_wide.dtype(bf16).ndim(3).layout(ndhwgc),
    data_narrow.dtype(bf16).ndim(3).layout(ndhwgc),
    data_wide.dtype(bf16).ndim(1).layout(nwgc));

DECL_KERNEL_SET(conv_cp_async_bwd_weight,
    targets(sm_80, sm_90),
    weight_wide.dtype(fp16).ndim(2).layout(nhwgc), weight_wide.dtype(bf16).ndim(2).layout(nhwgc),
    weight_m64.dtype(fp16).ndim(2).layout(nhwgc), weight_m64.dtype(bf16).ndim(2).layout(nhwgc),
    weight_narrow.dtype(fp16).ndim(2).layout(nhwgc), weight_narrow.dtype(bf16).ndim(2).layout(nhwgc),
    weight_wide.dtype(fp16).ndim(3).layout(ndhwgc), weight_wide.dtype(bf16).ndim(3).layout(ndhwgc),
    weight_narrow.dtype(bf16).ndim(3).layout(ndhwgc),
    weight_wide.dtype(bf16).ndim(1).layout(nwgc));
