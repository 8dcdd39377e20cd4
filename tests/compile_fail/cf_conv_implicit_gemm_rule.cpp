// Must not compile: Convolutions go through the GEMM rules of their implicit GEMM (here the warp tile).
// expect-error: rule::warp_tile_not_offered_for_dtype_on_arch, kdecl::arch_id::gfx942, 64, 64, 16
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_implicit_gemm_rule {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), grouped_conv().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(compv3));
}  // namespace case_conv_implicit_gemm_rule

constexpr auto keys = kdecl::dsl::expand<case_conv_implicit_gemm_rule::set>();
