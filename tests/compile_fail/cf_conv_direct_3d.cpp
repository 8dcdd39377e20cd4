// Must not compile: the direct convolution computes 1-D and 2-D layers only (its table offers no NDHWGC).
// expect-error: rule::conv_layout_not_offered_by_pipeline, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_direct_3d {
using namespace kdecl::dsl;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().direction(fwd).dtype(fp16).ndim(3)
    .layout(ndhwgc).pipeline(direct_conv).tile(8, 8, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8));
}  // namespace case_conv_direct_3d

constexpr auto keys = kdecl::dsl::expand<case_conv_direct_3d::set>();
