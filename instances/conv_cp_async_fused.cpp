// Forward convolutions with a fused epilogue (grouped_conv_key.hpp conv_fusion) on the cp.async +
// mma.sync pipeline (sm_80 family; also built for sm_90, where fp32 data runs on it): out =
// act(conv + bias + residual) on the GEMM's multi_d epilogues (kernels/conv/cuda/sm80/conv_fwd_sm80.cuh).
// bias + relu and bias + residual + relu on the dense 128x128 tile, fp16/bf16 and fp32 multiplied in
// tf32, and bias + relu on tf32's any-alignment tile. GPU tests and compute-sanitizer passed on an H100
// (sm_90; docs/perf/h100-2026-12-05-unverified-sets/).
#include "conv_cp_async_fp32_tiles.hpp"

namespace {
using namespace kdecl::dsl;
namespace fp32 = kdecl_instances::conv_cp_async_fp32;
constexpr auto dir = kdecl::conv_direction::fwd;
constexpr auto wide = grouped_conv().direction(fwd).pipeline(cp_async).epilogue(cshuffle).stages(4)
                          .tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).ndim(2).layout(nhwgc);
constexpr auto tf32_wide = fp32::tf32_wide(dir).ndim(2).layout(nhwgc);
constexpr auto tf32_any = fp32::tf32_any(dir).ndim(2).layout(nhwgc);
}  // namespace

DECL_KERNEL_SET(conv_cp_async_fused_fwd,
    targets(sm_80, sm_90),
    wide.dtype(fp16).bias().activation(relu), wide.dtype(bf16).bias().activation(relu),
    wide.dtype(fp16).bias().residual().activation(relu), wide.dtype(bf16).bias().residual().activation(relu),
    tf32_wide.bias().activation(relu), tf32_wide.bias().residual().activation(relu),
    tf32_any.bias().activation(relu));
