// Host (CPU) grouped-convolution kernels: every direction, rank and layout in
// fp16, bf16 and fp32 (fp32 accumulation), fp8/bf8 forward, and fp32 multiplied in tf32 (operands
// rounded to tf32 as a tensor core reads them: .compute(tf32)). They run where no GPU is, and the
// GPU kernels' tests compare against the same double reference they pass.
//
// The tile is the implicit GEMM's cache blocking and the warp tile its
// register micro-tile (kernels/conv/host/conv_kernel.hpp). Forward and
// backward-data GEMMs are M = pixels x N = K/G or C/G (narrow for grouped
// layers), deep over channels x taps; backward-weight GEMMs are M = K/G x
// N = taps x C/G, deep over N x output pixels.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto host_conv = grouped_conv().pipeline(host_blocked);
// Forward kernels apply whatever fused epilogue (bias, residual, activation) a problem names.
constexpr auto fwd_kernel = host_conv.direction(fwd).dynamic_fusion().tile(64, 64, 256).warp_tile(8, 8, 1);
constexpr auto bwd_data_kernel = host_conv.direction(bwd_data).tile(64, 64, 256).warp_tile(8, 8, 1);
constexpr auto bwd_weight_kernel = host_conv.direction(bwd_weight).tile(32, 128, 256).warp_tile(4, 16, 1);
}  // namespace

DECL_KERNEL_SET(conv_host_fwd,
    targets(host),
    fwd_kernel.dtype(fp16).ndim(1).layout(nwgc),
    fwd_kernel.dtype(fp16).ndim(2).layout(nhwgc),
    fwd_kernel.dtype(fp16).ndim(3).layout(ndhwgc),
    fwd_kernel.dtype(fp16).ndim(1).layout(gnwc),
    fwd_kernel.dtype(fp16).ndim(2).layout(gnhwc),
    fwd_kernel.dtype(fp16).ndim(3).layout(gndhwc),
    fwd_kernel.dtype(bf16).ndim(1).layout(nwgc),
    fwd_kernel.dtype(bf16).ndim(2).layout(nhwgc),
    fwd_kernel.dtype(bf16).ndim(3).layout(ndhwgc),
    fwd_kernel.dtype(bf16).ndim(1).layout(gnwc),
    fwd_kernel.dtype(bf16).ndim(2).layout(gnhwc),
    fwd_kernel.dtype(bf16).ndim(3).layout(gndhwc),
    fwd_kernel.dtype(fp32).ndim(1).layout(nwgc),
    fwd_kernel.dtype(fp32).ndim(2).layout(nhwgc),
    fwd_kernel.dtype(fp32).ndim(3).layout(ndhwgc),
    fwd_kernel.dtype(fp32).ndim(1).layout(gnwc),
    fwd_kernel.dtype(fp32).ndim(2).layout(gnhwc),
    fwd_kernel.dtype(fp32).ndim(3).layout(gndhwc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(1).layout(nwgc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(2).layout(nhwgc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(3).layout(ndhwgc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(1).layout(gnwc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(2).layout(gnhwc),
    fwd_kernel.dtype(fp32).compute(tf32).ndim(3).layout(gndhwc));

// 8-bit floating input and weights (fp8 e4m3, bf8 e5m2, mixed), forward only, written in 16 or 32 bits:
// every rank and layout of fp8 and bf8 data written in bf16 (what kdecl run conv --dtype fp8 asks).
DECL_KERNEL_SET(conv_host_fwd_fp8,
    targets(host),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(1).layout(nwgc),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(3).layout(ndhwgc),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(1).layout(gnwc),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(2).layout(gnhwc),
    fwd_kernel.dtypes(fp8, fp8, bf16).ndim(3).layout(gndhwc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(1).layout(nwgc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(3).layout(ndhwgc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(1).layout(gnwc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(2).layout(gnhwc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(3).layout(gndhwc),
    fwd_kernel.dtypes(fp8, fp8, fp16).ndim(2).layout(nhwgc),
    fwd_kernel.dtypes(fp8, fp8, fp32).ndim(2).layout(nhwgc),
    fwd_kernel.dtypes(bf8, bf8, bf16).ndim(2).layout(nhwgc),
    fwd_kernel.dtypes(fp8, bf8, bf16).ndim(2).layout(nhwgc),
    fwd_kernel.dtypes(bf8, fp8, bf16).ndim(2).layout(nhwgc));

DECL_KERNEL_SET(conv_host_bwd_data,
    targets(host),
    bwd_data_kernel.dtype(fp16).ndim(1).layout(nwgc),
    bwd_data_kernel.dtype(fp16).ndim(2).layout(nhwgc),
    bwd_data_kernel.dtype(fp16).ndim(3).layout(ndhwgc),
    bwd_data_kernel.dtype(fp16).ndim(1).layout(gnwc),
    bwd_data_kernel.dtype(fp16).ndim(2).layout(gnhwc),
    bwd_data_kernel.dtype(fp16).ndim(3).layout(gndhwc),
    bwd_data_kernel.dtype(bf16).ndim(1).layout(nwgc),
    bwd_data_kernel.dtype(bf16).ndim(2).layout(nhwgc),
    bwd_data_kernel.dtype(bf16).ndim(3).layout(ndhwgc),
    bwd_data_kernel.dtype(bf16).ndim(1).layout(gnwc),
    bwd_data_kernel.dtype(bf16).ndim(2).layout(gnhwc),
    bwd_data_kernel.dtype(bf16).ndim(3).layout(gndhwc),
    bwd_data_kernel.dtype(fp32).ndim(1).layout(nwgc),
    bwd_data_kernel.dtype(fp32).ndim(2).layout(nhwgc),
    bwd_data_kernel.dtype(fp32).ndim(3).layout(ndhwgc),
    bwd_data_kernel.dtype(fp32).ndim(1).layout(gnwc),
    bwd_data_kernel.dtype(fp32).ndim(2).layout(gnhwc),
    bwd_data_kernel.dtype(fp32).ndim(3).layout(gndhwc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(1).layout(nwgc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(2).layout(nhwgc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(3).layout(ndhwgc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(1).layout(gnwc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(2).layout(gnhwc),
    bwd_data_kernel.dtype(fp32).compute(tf32).ndim(3).layout(gndhwc));

DECL_KERNEL_SET(conv_host_bwd_weight,
    targets(host),
    bwd_weight_kernel.dtype(fp16).ndim(1).layout(nwgc),
    bwd_weight_kernel.dtype(fp16).ndim(2).layout(nhwgc),
    bwd_weight_kernel.dtype(fp16).ndim(3).layout(ndhwgc),
    bwd_weight_kernel.dtype(fp16).ndim(1).layout(gnwc),
    bwd_weight_kernel.dtype(fp16).ndim(2).layout(gnhwc),
    bwd_weight_kernel.dtype(fp16).ndim(3).layout(gndhwc),
    bwd_weight_kernel.dtype(bf16).ndim(1).layout(nwgc),
    bwd_weight_kernel.dtype(bf16).ndim(2).layout(nhwgc),
    bwd_weight_kernel.dtype(bf16).ndim(3).layout(ndhwgc),
    bwd_weight_kernel.dtype(bf16).ndim(1).layout(gnwc),
    bwd_weight_kernel.dtype(bf16).ndim(2).layout(gnhwc),
    bwd_weight_kernel.dtype(bf16).ndim(3).layout(gndhwc),
    bwd_weight_kernel.dtype(fp32).ndim(1).layout(nwgc),
    bwd_weight_kernel.dtype(fp32).ndim(2).layout(nhwgc),
    bwd_weight_kernel.dtype(fp32).ndim(3).layout(ndhwgc),
    bwd_weight_kernel.dtype(fp32).ndim(1).layout(gnwc),
    bwd_weight_kernel.dtype(fp32).ndim(2).layout(gnhwc),
    bwd_weight_kernel.dtype(fp32).ndim(3).layout(gndhwc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(1).layout(nwgc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(2).layout(nhwgc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(3).layout(ndhwgc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(1).layout(gnwc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(2).layout(gnhwc),
    bwd_weight_kernel.dtype(fp32).compute(tf32).ndim(3).layout(gndhwc));
