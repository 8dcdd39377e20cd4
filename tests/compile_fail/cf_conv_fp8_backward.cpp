// Must not compile: 8-bit (fp8/bf8) convolution data is offered forward only. A backward-weight
// declaration of fp8 input and weights with a bf16 dY is an implicit GEMM of bf16 x fp8, which the
// host's GEMM rules refuse before the conv offer is asked.
// expect-error: rule::dtype_combination_not_offered_by_pipeline, kdecl::arch_id::host
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fp8_backward {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), grouped_conv().direction(bwd_weight).dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc).pipeline(host_blocked).tile(32, 128, 256).warp_tile(4, 16, 1));
}  // namespace case_conv_fp8_backward

constexpr auto keys = kdecl::dsl::expand<case_conv_fp8_backward::set>();
