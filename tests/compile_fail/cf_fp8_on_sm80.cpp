// Must not compile: fp8 needs sm_89+ (or gfx940+).
// expect-error: rule::fp8_requires_sm_89_or_gfx940, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_fp8_on_sm80 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtypes(fp8, fp8, fp16).tile(128, 128, 64).warps(2, 2, 1).warp_tile(64, 64, 32).pipeline(cp_async));
}  // namespace case_fp8_on_sm80

constexpr auto keys = kdecl::dsl::expand<case_fp8_on_sm80::set>();
