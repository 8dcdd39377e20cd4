// Must not compile: sm_90's wgmma convolutions merge groups (block-diagonal weights) forward
// and backward-data only; a backward-weight declaration with groups_to_merge 4 names the
// directions and layouts that merge.
// expect-error: rule::conv_groups_to_merge_not_offered_for_signature, kdecl::arch_id::sm_90, 4
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_merge_bwd_weight {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_weight).dtype(bf16).ndim(2).groups_to_merge(4).pipeline(tma_wgmma).tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16));
}  // namespace case_conv_tma_wgmma_merge_bwd_weight

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_merge_bwd_weight::set>();
