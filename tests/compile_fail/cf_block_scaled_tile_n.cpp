// Must not compile: a B scale covers 128 columns: a block-scaled tile_n of 96 would straddle two of them.
// expect-error: rule::block_scaled_tile_n_straddles_scale_block, kdecl::arch_id::host, 96, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_tile_n {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), gemm().dtypes(fp8, fp8, bf16).variant(block_scaled).tile(64, 96, 128).warps(1, 1, 1).warp_tile(8, 16, 1).pipeline(host_blocked));
}  // namespace case_block_scaled_tile_n

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_tile_n::set>();
