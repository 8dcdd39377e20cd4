// Group-major layouts (GNWC, GNHWC, GNDHWC: each group's activations one packed NDHWC
// tensor) on the GPU: every direction, rank and dtype, with the kernels that take any
// channel count, stride and alignment, so no valid group-major problem is refused.
//   fp16, bf16   the sm_90 any-channel implicit GEMMs (conv_sm90_tma_any_channels*.cpp)
//   fp32         the cp_async implicit GEMMs with 4-byte vectors, in tf32 and exact
//                (conv_cp_async_fp32_tiles.hpp's tf32_any, exact_any), sm_80 and sm_90
// The kernels index every tensor through its per-dimension strides, so the layout only
// changes which strides the problem's packed tensors have. Not tuned for speed: the
// channels-last layouts are the fast path (PyTorch's channels_last is nhwgc).
#include "conv_cp_async_fp32_tiles.hpp"
#include "conv_sm90_tma_tiles.hpp"

namespace {
using namespace kdecl::dsl;
using kdecl::conv_direction;
using kdecl_instances::conv_cp_async_fp32::exact_any;
using kdecl_instances::conv_cp_async_fp32::tf32_any;
constexpr auto any_fwd = kdecl_instances::conv_sm90_tma::any_channels(conv_direction::fwd);
constexpr auto any_bwd_data = kdecl_instances::conv_sm90_tma::any_channels(conv_direction::bwd_data);
constexpr auto any_bwd_weight = kdecl_instances::conv_sm90_tma::any_channels(conv_direction::bwd_weight);
}  // namespace

DECL_KERNEL_SET(conv_group_major_sm90,
    targets(sm_90),
    any_fwd.dtype(fp16).ndim(1).layout(gnwc), any_fwd.dtype(bf16).ndim(1).layout(gnwc),
    any_fwd.dtype(fp16).ndim(2).layout(gnhwc), any_fwd.dtype(bf16).ndim(2).layout(gnhwc),
    any_fwd.dtype(fp16).ndim(3).layout(gndhwc), any_fwd.dtype(bf16).ndim(3).layout(gndhwc),
    any_bwd_data.dtype(fp16).ndim(1).layout(gnwc), any_bwd_data.dtype(bf16).ndim(1).layout(gnwc),
    any_bwd_data.dtype(fp16).ndim(2).layout(gnhwc), any_bwd_data.dtype(bf16).ndim(2).layout(gnhwc),
    any_bwd_data.dtype(fp16).ndim(3).layout(gndhwc), any_bwd_data.dtype(bf16).ndim(3).layout(gndhwc),
    any_bwd_weight.dtype(fp16).ndim(1).layout(gnwc), any_bwd_weight.dtype(bf16).ndim(1).layout(gnwc),
    any_bwd_weight.dtype(fp16).ndim(2).layout(gnhwc), any_bwd_weight.dtype(bf16).ndim(2).layout(gnhwc),
    any_bwd_weight.dtype(fp16).ndim(3).layout(gndhwc), any_bwd_weight.dtype(bf16).ndim(3).layout(gndhwc));

DECL_KERNEL_SET(conv_group_major_fp32,
    targets(sm_80, sm_90),
    tf32_any(conv_direction::fwd).ndim(1).layout(gnwc), tf32_any(conv_direction::fwd).ndim(2).layout(gnhwc),
    tf32_any(conv_direction::fwd).ndim(3).layout(gndhwc),
    tf32_any(conv_direction::bwd_data).ndim(1).layout(gnwc), tf32_any(conv_direction::bwd_data).ndim(2).layout(gnhwc),
    tf32_any(conv_direction::bwd_data).ndim(3).layout(gndhwc),
    tf32_any(conv_direction::bwd_weight).ndim(1).layout(gnwc),
    tf32_any(conv_direction::bwd_weight).ndim(2).layout(gnhwc),
    tf32_any(conv_direction::bwd_weight).ndim(3).layout(gndhwc),
    exact_any(conv_direction::fwd).ndim(1).layout(gnwc), exact_any(conv_direction::fwd).ndim(2).layout(gnhwc),
    exact_any(conv_direction::fwd).ndim(3).layout(gndhwc),
    exact_any(conv_direction::bwd_data).ndim(1).layout(gnwc),
    exact_any(conv_direction::bwd_data).ndim(2).layout(gnhwc),
    exact_any(conv_direction::bwd_data).ndim(3).layout(gndhwc),
    exact_any(conv_direction::bwd_weight).ndim(1).layout(gnwc),
    exact_any(conv_direction::bwd_weight).ndim(2).layout(gnhwc),
    exact_any(conv_direction::bwd_weight).ndim(3).layout(gndhwc));
