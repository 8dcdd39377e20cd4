// Must not compile: compv4 is an AMD pipeline.
// expect-error: rule::pipeline_not_offered_on_arch, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_pipeline_not_on_arch {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(compv4));
}  // namespace case_pipeline_not_on_arch

constexpr auto keys = kdecl::dsl::expand<case_pipeline_not_on_arch::set>();
