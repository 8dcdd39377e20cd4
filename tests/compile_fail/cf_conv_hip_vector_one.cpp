// Must not compile: the HIP convolution gathers whole vectors of 4, 8 or 16 bytes; a one-element
// (2-byte) input vector is no width its loaders issue on gfx942.
// expect-error: rule::conv_vector_bytes_not_offered_by_pipeline, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_hip_vector_one {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), grouped_conv().direction(fwd).dtype(bf16).ndim(2).layout(nhwgc).pipeline(compv4).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).vector_sizes(1, 8, 8));
}  // namespace case_conv_hip_vector_one

constexpr auto keys = kdecl::dsl::expand<case_conv_hip_vector_one::set>();
