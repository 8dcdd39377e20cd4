// Must not compile: the sm_90 kernels compile their fused epilogue in; reading it
// from the problem at run time is the host kernels' alone.
// expect-error: rule::conv_dynamic_fusion_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_dynamic_sm90 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).dynamic_fusion().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6));
}  // namespace case_conv_fusion_dynamic_sm90

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_dynamic_sm90::set>();
