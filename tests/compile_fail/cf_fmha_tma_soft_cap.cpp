// Must not compile: the sm_90 tma_wgmma_ws kernel computes no soft-cap (nor bias, ALiBi or sinks) yet.
// expect-error: rule::fmha_pipeline_lacks_score_modifiers, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_tma_soft_cap {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), fmha().dtype(bf16).hdim(128).logits_soft_cap(true).pipeline(tma_wgmma_ws).warps(8, 1, 1).tile(128, 128));
}  // namespace case_fmha_tma_soft_cap

constexpr auto keys = kdecl::dsl::expand<case_fmha_tma_soft_cap::set>();
