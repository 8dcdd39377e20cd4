// Must not compile: the direct convolution kernels (depthwise, stems) store plain results: no
// fused epilogue.
// expect-error: rule::conv_fusion_not_offered_by_pipeline, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_direct {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().direction(fwd).dtype(fp16).ndim(2).layout(nhwgc).bias().activation(relu).pipeline(direct_conv).tile(8, 8, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8));
}  // namespace case_conv_fusion_direct

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_direct::set>();
