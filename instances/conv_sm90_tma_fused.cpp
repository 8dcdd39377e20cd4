// Hopper (sm_90a) forward convolutions with a fused epilogue (grouped_conv_key.hpp conv_fusion):
// out = act(conv + bias + residual) stored once, on the GEMM's multi_d epilogues
// (kernels/conv/cuda/sm90/fused_epilogue_inputs.cuh). The two forms a ResNet block needs,
// bias + relu (conv + folded batch norm + relu) and bias + residual + relu (the block's last
// convolution), on the cooperative 128x128 im2col/gather kernel and the halo tiles (stride1,
// unit strides), fp16 and bf16; and bias + relu on the 128x64 tile taking the input and weights
// element by element (channel-padded copies: the RGB stems, C = 3), the output in place.
// Output through the TMA-store epilogue, bias and residual read in its chunk loop. GPU tests and
// compute-sanitizer passed on an H100 (docs/perf/h100-2026-12-05-unverified-sets/).
#include "conv_sm90_tma_tiles.hpp"

namespace {
namespace tiles = kdecl_instances::conv_sm90_tma;
using namespace kdecl::dsl;
constexpr auto forward = kdecl::conv_direction::fwd;
constexpr auto im2col(kdecl::dtype t) { return tiles::square(forward).dtype(t).ndim(2).layout(nhwgc); }
constexpr auto halo(kdecl::dtype t) { return tiles::halo(tiles::square(forward), t, 2); }
constexpr auto stem(kdecl::dtype t) {
  return tiles::narrow(forward).vector_sizes(1, 1, 8).dtype(t).ndim(2).layout(nhwgc);
}
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_fused_fwd,
    targets(sm_90),
    im2col(fp16).bias().activation(relu), im2col(bf16).bias().activation(relu),
    im2col(fp16).bias().residual().activation(relu), im2col(bf16).bias().residual().activation(relu),
    halo(fp16).bias().activation(relu), halo(bf16).bias().activation(relu),
    halo(fp16).bias().residual().activation(relu), halo(bf16).bias().residual().activation(relu),
    stem(fp16).bias().activation(relu), stem(bf16).bias().activation(relu));
