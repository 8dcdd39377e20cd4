// Must not compile: warps 8x2x1 is offered on gfx950 but not gfx942: each target is checked with its own tables (CK expanded every arch with gfx942's).
// expect-error: rule::warps_not_offered_for_pipeline_on_arch, kdecl::arch_id::gfx942, 8, 2, 1
#include "kdecl/dsl/dsl.hpp"

namespace case_explicit_invalid_for_one_target {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950, gfx942), gemm().dtype(fp16).tile(256, 128, 32).warps(8, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_explicit_invalid_for_one_target

constexpr auto keys = kdecl::dsl::expand<case_explicit_invalid_for_one_target::set>();
