// Must not compile: CK Tile's backward convolutions build only with compv3 or mem.
// expect-error: rule::conv_backward_requires_compv3_or_mem, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_backward_pipeline {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), grouped_conv().direction(bwd_data).dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv4));
}  // namespace case_conv_backward_pipeline

constexpr auto keys = kdecl::dsl::expand<case_conv_backward_pipeline::set>();
