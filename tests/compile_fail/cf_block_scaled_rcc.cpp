// Must not compile: tma_wgmma builds block-scaled GEMMs in rcr only (C^T would exchange A's and B's scale blocks).
// expect-error: rule::block_scaled_layout_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_rcc {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, bf16).layout(rcc).variant(block_scaled).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).pipeline(tma_wgmma));
}  // namespace case_block_scaled_rcc

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_rcc::set>();
