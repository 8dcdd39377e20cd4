// Must not compile: the staged depthwise kernel (direct_conv stages 2) loads its tiles with TMA,
// which sm_80 lacks (its table offers no staged rows per thread).
// expect-error: rule::conv_direct_staged_not_offered, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_direct_staged_sm80 {
using namespace kdecl::dsl;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().direction(fwd).dtype(bf16).ndim(2)
    .layout(nhwgc).pipeline(direct_conv).stages(2).tile(8, 16, 32).warps(4, 1, 1).warp_tile(4, 2, 4)
    .vector_sizes(2, 1, 2));
}  // namespace case_conv_direct_staged_sm80

constexpr auto keys = kdecl::dsl::expand<case_conv_direct_staged_sm80::set>();
