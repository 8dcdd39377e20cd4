// Must not compile: 128x256 over two consumer warpgroups holds 128 accumulators a thread, 256 with each k-block's partial sums; tma_wgmma allows 128.
// expect-error: rule::block_scaled_accumulators_exceed_register_cap, kdecl::arch_id::sm_90, 128, 128, 256
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_accumulators {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, bf16).variant(block_scaled).tile(128, 256, 128).warps(8, 1, 1).warp_tile(16, 256, 32).pipeline(tma_wgmma));
}  // namespace case_block_scaled_accumulators

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_accumulators::set>();
