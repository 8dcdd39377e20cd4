// Must not compile: The HIP kernel keeps LDS rows 16-byte aligned: int8 tile_k 8 spans 8 bytes.
// expect-error: rule::tile_extent_bytes_not_multiple_of_chunk, kdecl::arch_id::gfx90a, 2, 8, 8
#include "kdecl/dsl/dsl.hpp"

namespace case_tile_extent_chunk_gfx90a {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx90a), gemm().dtypes(int8, int8, int32).tile(128, 128, 8).warps(2, 2, 1).warp_tile(32, 32, 8).pipeline(compv3));
}  // namespace case_tile_extent_chunk_gfx90a

constexpr auto keys = kdecl::dsl::expand<case_tile_extent_chunk_gfx90a::set>();
