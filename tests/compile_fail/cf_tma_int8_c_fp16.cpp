// Must not compile: int8 on tma_wgmma writes int32 or int8 C only (fp16 here).
// expect-error: rule::c_dtype_not_offered_for_dtype_combination, kdecl::arch_id::sm_90, 0, 384
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_int8_c_fp16 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(int8, int8, fp16).layout(rcr).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).pipeline(tma_wgmma));
}  // namespace case_tma_int8_c_fp16

constexpr auto keys = kdecl::dsl::expand<case_tma_int8_c_fp16::set>();
