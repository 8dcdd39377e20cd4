// Must not compile: an fp8 tile_k must fill one 128-byte swizzled row (128 elements), not 64.
// expect-error: rule::tile_k_bytes_must_equal_swizzle_row, kdecl::arch_id::sm_90, 64, 64, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_fp8_tile_k_bytes {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, bf16).layout(rcr).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 32).pipeline(tma_wgmma));
}  // namespace case_tma_fp8_tile_k_bytes

constexpr auto keys = kdecl::dsl::expand<case_tma_fp8_tile_k_bytes::set>();
