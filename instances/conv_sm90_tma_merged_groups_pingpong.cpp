// The merged-groups convolutions (conv_sm90_tma_merged_groups.cpp) on the pingpong
// schedule: two consumer warpgroups, a 128x64 tile each, one tile's epilogue under the
// other's main loop. A merged layer's depth is short (9 taps x 64 channels for a 3x3
// filter), so the cooperative schedule spends much of each tile outside the main loop.
#include "conv_sm90_tma_tiles.hpp"

namespace {
using kdecl_instances::conv_sm90_tma::merged_groups;
constexpr auto forward = kdecl_instances::conv_sm90_tma::pp_narrow(kdecl::conv_direction::fwd);
constexpr auto backward_data = kdecl_instances::conv_sm90_tma::pp_narrow(kdecl::conv_direction::bwd_data);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_merged_groups_pingpong_fwd,
    targets(sm_90),
    merged_groups(forward, fp16, 2), merged_groups(forward, bf16, 2),
    merged_groups(forward, fp16, 4), merged_groups(forward, bf16, 4),
    merged_groups(forward, fp16, 8), merged_groups(forward, bf16, 8),
    merged_groups(forward, fp16, 16), merged_groups(forward, bf16, 16));

DECL_KERNEL_SET(conv_sm90_tma_merged_groups_pingpong_bwd_data,
    targets(sm_90),
    merged_groups(backward_data, fp16, 2), merged_groups(backward_data, bf16, 2),
    merged_groups(backward_data, fp16, 4), merged_groups(backward_data, bf16, 4),
    merged_groups(backward_data, fp16, 8), merged_groups(backward_data, bf16, 8),
    merged_groups(backward_data, fp16, 16), merged_groups(backward_data, bf16, 16));
