// Must not compile: wgmma reads 8-bit operands only K-major: fp8 on tma_wgmma is rcr or rcc only (rrr here).
// expect-error: rule::layout_not_offered_for_dtype, kdecl::arch_id::sm_90, 0, 12, .*must be K-major
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_fp8_layout_not_k_major {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, bf16).layout(rrr).tile(128, 256, 128).warps(8, 1, 1).warp_tile(16, 256, 32).pipeline(tma_wgmma));
}  // namespace case_tma_fp8_layout_not_k_major

constexpr auto keys = kdecl::dsl::expand<case_tma_fp8_layout_not_k_major::set>();
