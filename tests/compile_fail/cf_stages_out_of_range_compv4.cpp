// Must not compile: compv4 is a double-buffered pipeline: stages must be 2.
// expect-error: rule::stages_out_of_range_for_pipeline, kdecl::arch_id::gfx942, 1, 2, 2
#include "kdecl/dsl/dsl.hpp"

namespace case_stages_out_of_range_compv4 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv4).stages(1));
}  // namespace case_stages_out_of_range_compv4

constexpr auto keys = kdecl::dsl::expand<case_stages_out_of_range_compv4::set>();
