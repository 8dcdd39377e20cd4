// Must not compile: 32-byte accesses are not offered by the CK pipelines.
// expect-error: rule::vector_bytes_not_offered_by_pipeline, kdecl::arch_id::gfx942, 32
#include "kdecl/dsl/dsl.hpp"

namespace case_vector_bytes_not_offered {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3).vector_bytes(32));
}  // namespace case_vector_bytes_not_offered

constexpr auto keys = kdecl::dsl::expand<case_vector_bytes_not_offered::set>();
