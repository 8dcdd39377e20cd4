// Must not compile: a block-scaled GEMM takes one A and one B scale per k-block, so its tile_k is the 128-deep scale block.
// expect-error: rule::block_scaled_tile_k_not_scale_block, kdecl::arch_id::host, 64, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_tile_k {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), gemm().dtypes(fp8, fp8, bf16).variant(block_scaled).tile(64, 64, 64).warps(1, 1, 1).warp_tile(8, 8, 1).pipeline(host_blocked));
}  // namespace case_block_scaled_tile_k

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_tile_k::set>();
