// Must not compile: An elementwise op needs the multi_d variant.
// expect-error: rule::elementwise_op_requires_multi_d, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_elementwise_without_multi_d {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).multi_d(gelu, 1).variant(standard).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_elementwise_without_multi_d

constexpr auto keys = kdecl::dsl::expand<case_elementwise_without_multi_d::set>();
