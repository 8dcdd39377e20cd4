// Must not compile: Wildcard warps/warp tiles leave gfx942 kernels but none for gfx1100 (every RDNA warp config needs a bigger tile): the build fails instead of silently shipping nothing.
// expect-error: rule::wildcards_leave_no_valid_kernel, kdecl::arch_id::gfx1100
#include "kdecl/dsl/dsl.hpp"

namespace case_wildcard_empty_for_one_target {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942, gfx1100), gemm().dtype(fp16).tile(32, 32, 32).warps(any).warp_tile(any).pipeline(compv3));
}  // namespace case_wildcard_empty_for_one_target

constexpr auto keys = kdecl::dsl::expand<case_wildcard_empty_for_one_target::set>();
