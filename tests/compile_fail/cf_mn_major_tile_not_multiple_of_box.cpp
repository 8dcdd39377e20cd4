// Must not compile: tma_wgmma loads a row-major B in 64-column (128-byte) TMA boxes, so tile_n 160 (320 bytes of bf16) needs B column-major (K-major).
// expect-error: rule::mn_major_tile_not_multiple_of_box, kdecl::arch_id::sm_90, 1, 160
#include "kdecl/dsl/dsl.hpp"

namespace case_mn_major_tile_not_multiple_of_box {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rrr).pipeline(tma_wgmma).tile(128, 160, 64).warps(8, 1, 1).warp_tile(16, 160, 16).stages(4));
}  // namespace case_mn_major_tile_not_multiple_of_box

constexpr auto keys = kdecl::dsl::expand<case_mn_major_tile_not_multiple_of_box::set>();
