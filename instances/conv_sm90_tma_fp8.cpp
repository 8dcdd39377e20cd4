// Hopper (sm_90a) forward convolutions of 8-bit floating data: fp8 (e4m3) and bf8 (e5m2)
// input and weights, mixed or not, written in bf16 (fp8 also in fp16 and fp32), accumulated
// in fp32: the signatures the host set (conv_host.cpp conv_host_fwd_fp8) computes, every rank
// and layout. Each group's implicit GEMM runs on the fp8 tma_wgmma GEMM kernel (K-major A and
// B, as wgmma's 8-bit operands must be), A the input gathered by an im2col kernel into the
// workspace, or the input itself for a 1x1 layer of unit stride
// (kernels/conv/cuda/sm90/conv_fwd_fp8_sm90.cuh). Every operand taken element by element
// (vector 1): any C/G, K/G, stride and pointer. One group per GEMM, no specialization, no
// fused epilogue (the tables' conv_fp8_forward_not_plain rule).
//   wide     128x256, 4 stages   K/G >= 256
//   square   128x128, 6 stages   K/G of 128, and layers 128x256 tiles leave short of a wave
//   narrow   128x64,  8 stages   K/G <= 64
// fp8 -> bf16 in channels-last 2-D has the three; every other signature the square tile.
#include "kdecl/declare/conv.hpp"

namespace {
using namespace kdecl::dsl;
constexpr auto base = grouped_conv().direction(fwd).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave)
                          .vector_sizes(1, 1, 1);
constexpr auto wide = base.tile(128, 256, 128).warps(8, 1, 1).warp_tile(16, 256, 32).stages(4);
constexpr auto square = base.tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6);
constexpr auto narrow = base.tile(128, 64, 128).warps(8, 1, 1).warp_tile(16, 64, 32).stages(8);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fp8_fwd,
    targets(sm_90),
    wide.dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc),
    square.dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc),
    narrow.dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc),
    square.dtypes(fp8, fp8, bf16).ndim(1).layout(nwgc),
    square.dtypes(fp8, fp8, bf16).ndim(3).layout(ndhwgc),
    square.dtypes(fp8, fp8, bf16).ndim(1).layout(gnwc),
    square.dtypes(fp8, fp8, bf16).ndim(2).layout(gnhwc),
    square.dtypes(fp8, fp8, bf16).ndim(3).layout(gndhwc),
    square.dtypes(bf8, bf8, bf16).ndim(1).layout(nwgc),
    square.dtypes(bf8, bf8, bf16).ndim(2).layout(nhwgc),
    square.dtypes(bf8, bf8, bf16).ndim(3).layout(ndhwgc),
    square.dtypes(bf8, bf8, bf16).ndim(1).layout(gnwc),
    square.dtypes(bf8, bf8, bf16).ndim(2).layout(gnhwc),
    square.dtypes(bf8, bf8, bf16).ndim(3).layout(gndhwc),
    square.dtypes(fp8, fp8, fp16).ndim(2).layout(nhwgc),
    square.dtypes(fp8, fp8, fp32).ndim(2).layout(nhwgc),
    square.dtypes(fp8, bf8, bf16).ndim(2).layout(nhwgc),
    square.dtypes(bf8, fp8, bf16).ndim(2).layout(nhwgc));
