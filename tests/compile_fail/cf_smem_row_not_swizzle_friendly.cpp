// Must not compile: cp_async keeps row-major B as tile_k rows of tile_n: 48 fp16 = 96 bytes, not 16/32/64/128n (the XOR swizzle would conflict).
// expect-error: rule::smem_row_bytes_not_swizzle_friendly, kdecl::arch_id::sm_80, 1, 96
#include "kdecl/dsl/dsl.hpp"

namespace case_smem_row_not_swizzle_friendly {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtype(fp16).layout(rrr).tile(64, 48, 32).warps(1, 1, 1).warp_tile(16, 16, 16).pipeline(cp_async));
}  // namespace case_smem_row_not_swizzle_friendly

constexpr auto keys = kdecl::dsl::expand<case_smem_row_not_swizzle_friendly::set>();
