// Must not compile: compv4 double-buffers LDS with rows padded by 16 bytes: 2 x 45 KiB = 90 KiB > 64 KiB on gfx942 (CK's formula ignored the second buffer).
// expect-error: rule::lds_exceeds_capacity_for_pipeline, kdecl::arch_id::gfx942, 92160, 65536
#include "kdecl/dsl/dsl.hpp"

namespace case_lds_exceeds_compv4 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).tile(192, 128, 64).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv4));
}  // namespace case_lds_exceeds_compv4

constexpr auto keys = kdecl::dsl::expand<case_lds_exceeds_compv4::set>();
