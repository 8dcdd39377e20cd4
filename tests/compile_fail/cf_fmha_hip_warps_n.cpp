// Must not compile: the HIP attention kernel's waves split the query rows only (warps m x 1 x 1);
// CK's rules alone would take 2 x 2 x 1.
// expect-error: rule::fmha_warps_not_offered_for_pipeline, kdecl::arch_id::gfx942, 2, 2, 1
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_hip_warps_n {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), fmha().dtype(fp16).hdim(64).pipeline(qr).warps(2, 2, 1).tile(128, 64, 32));
}  // namespace case_fmha_hip_warps_n

constexpr auto keys = kdecl::dsl::expand<case_fmha_hip_warps_n::set>();
