// Host (CPU) grouped-convolution kernels: every direction, rank and layout in
// fp16, bf16 and fp32 (fp32 accumulation), and fp32 multiplied in tf32 (operands
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
