// Must not compile: Only mem supports the interwave scheduler (CK trait exclusions; gfx950 keeps the CK seed offers, kdecl's gfx942 kernel has no interwave at all).
// expect-error: rule::interwave_scheduler_not_allowed_with_pipeline, kdecl::arch_id::gfx950
#include "kdecl/dsl/dsl.hpp"

namespace case_interwave_with_compv4 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv4).epilogue(cshuffle).scheduler(interwave));
}  // namespace case_interwave_with_compv4

constexpr auto keys = kdecl::dsl::expand<case_interwave_with_compv4::set>();
