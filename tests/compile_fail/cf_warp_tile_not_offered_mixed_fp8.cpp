// Must not compile: CK's gfx950 tables offer only 32x32x16, 16x16x128 and 32x32x64 for bf8 x fp8 (kdecl's gfx942 kernel has no mixed fp8 at all).
// expect-error: rule::warp_tile_not_offered_for_dtype_on_arch, kdecl::arch_id::gfx950, 16, 16, 32
#include "kdecl/dsl/dsl.hpp"

namespace case_warp_tile_not_offered_mixed_fp8 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950), gemm().dtypes(bf8, fp8, fp16).tile(128, 128, 64).warps(2, 2, 1).warp_tile(16, 16, 32).pipeline(compv3));
}  // namespace case_warp_tile_not_offered_mixed_fp8

constexpr auto keys = kdecl::dsl::expand<case_warp_tile_not_offered_mixed_fp8::set>();
