// Must not compile: kdecl's HIP kernel builds fp8 x fp8 and bf8 x bf8 on gfx942, not mixed bf8 x fp8 (CK's seed lists it).
// expect-error: rule::dtype_combination_not_offered_by_pipeline, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_mixed_fp8_not_built_gfx942 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtypes(bf8, fp8, fp16).tile(128, 128, 64).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_mixed_fp8_not_built_gfx942

constexpr auto keys = kdecl::dsl::expand<case_mixed_fp8_not_built_gfx942::set>();
