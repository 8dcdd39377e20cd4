// Hopper (sm_90a) convolutions of grouped layers with few channels per group (ResNeXt's
// 4 to 32), forward and backward-data: groups_to_merge m neighbouring groups side by side
// in one 128x64 tile (block-diagonal weights: kernels/conv/merged_groups.hpp), so that
// m x 64 / m = 64 output channels fill the tile instead of K/G (forward) or C/G
// (backward-data) of them. m = 16, 8, 4, 2 suit 4, 8, 16, 32 channels per group. The
// gather producer (no TMA). Tiles: conv_sm90_tma_tiles.hpp.
#include "conv_sm90_tma_tiles.hpp"

namespace {
using kdecl_instances::conv_sm90_tma::merged_groups;
constexpr auto forward = kdecl_instances::conv_sm90_tma::narrow(kdecl::conv_direction::fwd);
constexpr auto backward_data = kdecl_instances::conv_sm90_tma::narrow(kdecl::conv_direction::bwd_data);
}  // namespace

DECL_KERNEL_SET(conv_sm90_tma_merged_groups_fwd,
    targets(sm_90),
    merged_groups(forward, fp16, 2), merged_groups(forward, bf16, 2),
    merged_groups(forward, fp16, 4), merged_groups(forward, bf16, 4),
    merged_groups(forward, fp16, 8), merged_groups(forward, bf16, 8),
    merged_groups(forward, fp16, 16), merged_groups(forward, bf16, 16));

DECL_KERNEL_SET(conv_sm90_tma_merged_groups_bwd_data,
    targets(sm_90),
    merged_groups(backward_data, fp16, 2), merged_groups(backward_data, bf16, 2),
    merged_groups(backward_data, fp16, 4), merged_groups(backward_data, bf16, 4),
    merged_groups(backward_data, fp16, 8), merged_groups(backward_data, bf16, 8),
    merged_groups(backward_data, fp16, 16), merged_groups(backward_data, bf16, 16));
