// Must not compile: the sm_80 cp_async convolutions store plain results (no fused
// epilogue yet).
// expect-error: rule::conv_fusion_not_offered_by_pipeline, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_cp_async {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().direction(fwd).dtype(fp16).ndim(2).bias().activation(relu).pipeline(cp_async).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16));
}  // namespace case_conv_fusion_cp_async

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_cp_async::set>();
