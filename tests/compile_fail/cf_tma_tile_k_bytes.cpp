// Must not compile: tma_wgmma rows are 128-byte swizzled: fp16 tile_k must be 64.
// expect-error: rule::tile_k_bytes_must_equal_swizzle_row, kdecl::arch_id::sm_90, 32, 64, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_tile_k_bytes {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(128, 128, 32).warps(4, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma));
}  // namespace case_tma_tile_k_bytes

constexpr auto keys = kdecl::dsl::expand<case_tma_tile_k_bytes::set>();
