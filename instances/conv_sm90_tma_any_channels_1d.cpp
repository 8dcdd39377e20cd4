// Hopper (sm_90a) 1-D convolutions of any channel count, every direction: the 2-D and 3-D
// any-channel sets (conv_sm90_tma_any_channels*.cpp) on NWGC data, for 1-D stems such as a
// waveform's first convolution (C = 1) and odd channel counts. The GPU tests run them on a 1-D
// stem and C = 5, K = 7 (tests/gpu/conv_odd_problems.hpp, conv_bwd_gpu_test.cpp; passed on an
// H100 on 2026-11-27).
#include "conv_sm90_tma_tiles.hpp"

namespace {
constexpr auto any_fwd = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::fwd);
constexpr auto any_bwd_data = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::bwd_data);
constexpr auto any_bwd_weight = kdecl_instances::conv_sm90_tma::any_channels(kdecl::conv_direction::bwd_weight);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_any_channels_1d,
    targets(sm_90),
    any_fwd.dtype(fp16).ndim(1).layout(nwgc), any_fwd.dtype(bf16).ndim(1).layout(nwgc),
    any_bwd_data.dtype(fp16).ndim(1).layout(nwgc), any_bwd_data.dtype(bf16).ndim(1).layout(nwgc),
    any_bwd_weight.dtype(fp16).ndim(1).layout(nwgc), any_bwd_weight.dtype(bf16).ndim(1).layout(nwgc));
