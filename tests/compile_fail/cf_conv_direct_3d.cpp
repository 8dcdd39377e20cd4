// Must not compile: the direct convolution computes fwd and bwd_data only (its table offers no bwd_weight).
// expect-error: rule::conv_direction_not_offered_by_pipeline, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_direct_bwd_weight {
using namespace kdecl::dsl;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().direction(bwd_weight).dtype(fp16).ndim(2)
    .layout(nhwgc).pipeline(direct_conv).tile(8, 8, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8));
}  // namespace case_conv_direct_bwd_weight

constexpr auto keys = kdecl::dsl::expand<case_conv_direct_bwd_weight::set>();
