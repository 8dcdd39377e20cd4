// Must not compile: Block tile not a multiple of warps x warp tile (explicit, gfx942).
// expect-error: rule::tile_m_not_multiple_of_warps_m_x_warp_tile_m, kdecl::arch_id::gfx942, 96, 64
#include "kdecl/dsl/dsl.hpp"

namespace case_tile_not_multiple {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(96, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_tile_not_multiple

constexpr auto keys = kdecl::dsl::expand<case_tile_not_multiple::set>();
