// Must not compile: only fp8/bf8 data is block-scaled (the tables offer the variant for those signatures alone).
// expect-error: rule::variant_not_offered_for_dtype, kdecl::arch_id::host
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_not_fp8 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(host), gemm().dtype(bf16).variant(block_scaled).tile(64, 64, 128).warps(1, 1, 1).warp_tile(8, 8, 1).pipeline(host_blocked));
}  // namespace case_block_scaled_not_fp8

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_not_fp8::set>();
