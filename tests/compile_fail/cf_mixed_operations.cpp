// Must not compile: A set holds one operation.
// expect-error: rule::one_operation_per_set
#include "kdecl/dsl/dsl.hpp"

namespace case_mixed_operations {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3), fmha().hdim(128).tile(128, 64, 32).pipeline(qr));
}  // namespace case_mixed_operations

constexpr auto keys = kdecl::dsl::expand<case_mixed_operations::set>();
