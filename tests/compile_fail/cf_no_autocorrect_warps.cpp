// Must not compile: CK autocorrected wave(1,1,1) to (2,2,1) and blamed gfx942; kdecl rejects it and names the declared arch.
// expect-error: rule::warps_not_offered_for_pipeline_on_arch, kdecl::arch_id::gfx90a, 1, 1, 1
#include "kdecl/dsl/dsl.hpp"

namespace case_no_autocorrect_warps {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx90a), gemm().dtype(fp16).tile(128, 128, 32).warps(1, 1, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_no_autocorrect_warps

constexpr auto keys = kdecl::dsl::expand<case_no_autocorrect_warps::set>();
