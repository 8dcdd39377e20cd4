// Must not compile: tma_wgmma's convolutions take tile_n multiples of 64 (its N = 160 tiles are the GEMM's, for K-major B).
// expect-error: rule::conv_tile_n_not_built, kdecl::arch_id::sm_90, 160, 64
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tile_n_not_built {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_weight).dtype(bf16).tile(128, 160, 64).warps(8, 1, 1).warp_tile(16, 160, 16).pipeline(tma_wgmma));
}  // namespace case_conv_tile_n_not_built

constexpr auto keys = kdecl::dsl::expand<case_conv_tile_n_not_built::set>();
