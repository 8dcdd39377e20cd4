// Must not compile: multi_d_add is the GEMM's sum of D tensors, not an activation a
// convolution's epilogue applies.
// expect-error: rule::conv_fusion_activation_not_offered, kdecl::arch_id::host
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_activation {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), grouped_conv().direction(fwd).dtype(fp16).activation(multi_d_add).pipeline(host_blocked).tile(64, 64, 256).warp_tile(8, 8, 1));
}  // namespace case_conv_fusion_activation

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_activation::set>();
