// Must not compile: the sm_80 backward-weight convolution gathers its input with cp.async (4, 8 or 16 bytes): a one-element bf16 input vector (2 bytes) is no access width of the pipeline.
// expect-error: rule::conv_vector_bytes_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_cp_async_bwd_weight_vector_one {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_weight).dtype(bf16).pipeline(cp_async).vector_sizes(1, 8, 8).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16));
}  // namespace case_conv_cp_async_bwd_weight_vector_one

constexpr auto keys = kdecl::dsl::expand<case_conv_cp_async_bwd_weight_vector_one::set>();
