// fp32 backward convolutions on the cp.async pipeline (sm_80 family; also built
// for sm_90): conv_cp_async_bwd.cpp's backward-data by stride phases and
// backward-weight with split-K, fp32 data multiplied in tf32 (mma.sync,
// .compute(tf32)) or exactly (FFMA).
//   16-byte vectors   C/G and K/G multiples of 4, 16-byte aligned tensors
//   4-byte vectors    any channel count, stride and alignment fp32 data has
// Every rank, channels-last. Tests: tests/gpu/conv_bwd_gpu_test.cpp.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto data = grouped_conv().direction(bwd_data).pipeline(cp_async).epilogue(cshuffle).dtype(fp32);
constexpr auto weight = grouped_conv().direction(bwd_weight).pipeline(cp_async).epilogue(cshuffle).dtype(fp32);
// tf32: 128x128x16 blocks of 2x2 warps; any-channel: 64x64x16.
constexpr auto data_tf32 = data.compute(tf32).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8).stages(4);
constexpr auto weight_tf32 = weight.compute(tf32).tile(128, 128, 16).warps(2, 2, 1).warp_tile(64, 64, 8).stages(4);
constexpr auto data_tf32_any =
    data.compute(tf32).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4).vector_sizes(1, 1, 1);
constexpr auto weight_tf32_any =
    weight.compute(tf32).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8).stages(4).vector_sizes(1, 1, 1);
// tf32 with 128-byte k rows: 8 warps on 128x128; 64 wide on the GEMM's N (bwd_data: C/G) or M (bwd_weight: K/G).
constexpr auto data_tf32_deep = data.compute(tf32).tile(128, 128, 32).warps(2, 4, 1).warp_tile(64, 32, 8).stages(3);
constexpr auto weight_tf32_deep =
    weight.compute(tf32).tile(128, 128, 32).warps(2, 4, 1).warp_tile(64, 32, 8).stages(3);
constexpr auto data_tf32_n64 = data.compute(tf32).tile(128, 64, 32).warps(2, 2, 1).warp_tile(64, 32, 8).stages(4);
constexpr auto weight_tf32_m64 = weight.compute(tf32).tile(64, 128, 32).warps(2, 2, 1).warp_tile(32, 64, 8).stages(4);
// Exact fp32: 128x128x8 blocks of 2x4 warps on FFMA.
constexpr auto data_exact = data.tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
constexpr auto weight_exact = weight.tile(128, 128, 8).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
constexpr auto data_exact_any = data_exact.vector_sizes(1, 1, 1);
constexpr auto weight_exact_any = weight_exact.vector_sizes(1, 1, 1);
constexpr auto data_exact_k16 = data.tile(128, 128, 16).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
constexpr auto weight_exact_k16 = weight.tile(128, 128, 16).warps(2, 4, 1).warp_tile(64, 32, 1).stages(3);
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fp32_bwd_data,
    targets(sm_80, sm_90),
    data_tf32.ndim(1).layout(nwgc), data_tf32.ndim(2).layout(nhwgc), data_tf32.ndim(3).layout(ndhwgc),
    data_tf32_any.ndim(1).layout(nwgc), data_tf32_any.ndim(2).layout(nhwgc), data_tf32_any.ndim(3).layout(ndhwgc),
    data_tf32_deep.ndim(2).layout(nhwgc), data_tf32_n64.ndim(2).layout(nhwgc),
    data_exact.ndim(2).layout(nhwgc), data_exact_k16.ndim(2).layout(nhwgc),
    data_exact_any.ndim(1).layout(nwgc), data_exact_any.ndim(2).layout(nhwgc), data_exact_any.ndim(3).layout(ndhwgc));

DECL_KERNEL_SET(conv_cp_async_fp32_bwd_weight,
    targets(sm_80, sm_90),
    weight_tf32.ndim(1).layout(nwgc), weight_tf32.ndim(2).layout(nhwgc), weight_tf32.ndim(3).layout(ndhwgc),
    weight_tf32_any.ndim(1).layout(nwgc), weight_tf32_any.ndim(2).layout(nhwgc),
    weight_tf32_any.ndim(3).layout(ndhwgc),
    weight_tf32_deep.ndim(2).layout(nhwgc), weight_tf32_m64.ndim(2).layout(nhwgc),
    weight_exact.ndim(2).layout(nhwgc), weight_exact_k16.ndim(2).layout(nhwgc),
    weight_exact_any.ndim(1).layout(nwgc), weight_exact_any.ndim(2).layout(nhwgc),
    weight_exact_any.ndim(3).layout(ndhwgc));
