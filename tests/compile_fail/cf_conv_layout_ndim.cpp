// Must not compile: A 2-D layout for a 3-D convolution.
// expect-error: rule::conv_layout_does_not_match_ndim
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_layout_ndim {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), grouped_conv().ndim(3).layout(nhwgc).dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_conv_layout_ndim

constexpr auto keys = kdecl::dsl::expand<case_conv_layout_ndim::set>();
