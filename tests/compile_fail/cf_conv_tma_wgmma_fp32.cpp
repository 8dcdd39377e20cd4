// Must not compile: the sm_90 TMA convolutions take 16-bit data; fp32 (exact or tf32) convolutions run on cp_async.
// expect-error: rule::conv_dtypes_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_fp32 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(fp32).compute(tf32).pipeline(tma_wgmma).tile(128, 128, 32).warps(8, 1, 1).warp_tile(16, 128, 8));
}  // namespace case_conv_tma_wgmma_fp32

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_fp32::set>();
