// Must not compile: fp8 warp tile k = 128 is gfx950-only (CK: compiles on gfx942 and returns zeros).
// expect-error: rule::warp_tile_not_offered_for_dtype_on_arch, kdecl::arch_id::gfx942, 16, 16, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_fp8_warp_tile_k128_gfx942 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtypes(fp8, fp8, fp16).tile(128, 128, 128).warps(2, 2, 1).warp_tile(16, 16, 128).pipeline(compv3));
}  // namespace case_fp8_warp_tile_k128_gfx942

constexpr auto keys = kdecl::dsl::expand<case_fp8_warp_tile_k128_gfx942::set>();
