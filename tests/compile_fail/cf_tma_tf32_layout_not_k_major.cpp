// Must not compile: wgmma reads tf32 operands only K-major: tf32 on tma_wgmma is rcr or rcc only (crr here).
// expect-error: rule::layout_not_offered_for_dtype, kdecl::arch_id::sm_90, 4, 12, .*must be K-major
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_tf32_layout_not_k_major {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp32).compute(tf32).layout(crr).tile(128, 128, 32).warps(8, 1, 1).warp_tile(16, 128, 8).pipeline(tma_wgmma));
}  // namespace case_tma_tf32_layout_not_k_major

constexpr auto keys = kdecl::dsl::expand<case_tma_tf32_layout_not_k_major::set>();
