// Must not compile: The same compv4 tile fits gfx950's 160 KiB LDS but not gfx942's 64 KiB: LDS is per arch.
// expect-error: rule::lds_exceeds_capacity_for_pipeline, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_lds_fits_gfx950_not_gfx942 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950, gfx942), gemm().dtype(fp16).tile(192, 128, 64).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv4));
}  // namespace case_lds_fits_gfx950_not_gfx942

constexpr auto keys = kdecl::dsl::expand<case_lds_fits_gfx950_not_gfx942::set>();
