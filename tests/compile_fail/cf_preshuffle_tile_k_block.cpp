// Must not compile: cp_async preshuffled B is read in 64-byte k blocks: fp16 tile_k 16 is 32 bytes.
// expect-error: rule::preshuffle_tile_k_bytes_not_multiple_of_block, kdecl::arch_id::sm_80, 16, 32, 64
#include "kdecl/dsl/dsl.hpp"

namespace case_preshuffle_tile_k_block {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtype(fp16).variant(preshuffle).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(cp_async));
}  // namespace case_preshuffle_tile_k_block

constexpr auto keys = kdecl::dsl::expand<case_preshuffle_tile_k_block::set>();
