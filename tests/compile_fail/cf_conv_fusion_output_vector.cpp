// Must not compile: a one-element output vector writes through a channel-padded
// copy, where a fused epilogue cannot add the bias and residual in place.
// expect-error: rule::conv_fusion_requires_output_vector, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_output_vector {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).bias().activation(relu).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).vector_sizes(8, 8, 1).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).stages(6));
}  // namespace case_conv_fusion_output_vector

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_output_vector::set>();
