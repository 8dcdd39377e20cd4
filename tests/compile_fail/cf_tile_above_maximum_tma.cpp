// Must not compile: tma_wgmma block tiles are at most 256 rows (tile_m 320).
// expect-error: rule::tile_above_maximum_for_pipeline, kdecl::arch_id::sm_90, 0, 320, 256
#include "kdecl/dsl/dsl.hpp"

namespace case_tile_above_maximum_tma {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(320, 64, 64).warps(4, 1, 1).warp_tile(16, 64, 16).pipeline(tma_wgmma));
}  // namespace case_tile_above_maximum_tma

constexpr auto keys = kdecl::dsl::expand<case_tile_above_maximum_tma::set>();
