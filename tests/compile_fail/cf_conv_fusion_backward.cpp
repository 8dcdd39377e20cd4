// Must not compile: a fused epilogue (bias, residual, activation) is for forward
// convolutions only; a backward-data kernel with a bias names the rule.
// expect-error: rule::conv_fusion_requires_forward, kdecl::arch_id::host
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_backward {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), grouped_conv().direction(bwd_data).dtype(fp16).bias().pipeline(host_blocked).tile(64, 64, 256).warp_tile(8, 8, 1));
}  // namespace case_conv_fusion_backward

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_backward::set>();
