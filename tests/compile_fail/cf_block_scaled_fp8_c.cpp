// Must not compile: a block-scaled GEMM writes fp16, bf16 or fp32 C (tma_wgmma offers fp8 C for the standard variant only).
// expect-error: rule::block_scaled_c_dtype_not_16_or_32_bit, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_block_scaled_fp8_c {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, fp8).variant(block_scaled).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).pipeline(tma_wgmma));
}  // namespace case_block_scaled_fp8_c

constexpr auto keys = kdecl::dsl::expand<case_block_scaled_fp8_c::set>();
