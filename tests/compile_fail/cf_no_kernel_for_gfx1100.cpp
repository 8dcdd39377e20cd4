// Must not compile: gfx1100's tables validate this declaration, but kdecl builds no kernel for RDNA: expand<> (what DECL_KERNEL_SET builds) says so instead of shipping nothing.
// expect-error: rule::no_kernel_built_for_arch, kdecl::arch_id::gfx1100
#include "kdecl/dsl/dsl.hpp"

namespace case_no_kernel_for_gfx1100 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx1100), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 4, 1).warp_tile(16, 16, 16).pipeline(compv3).epilogue(cshuffle).scheduler(intrawave));
}  // namespace case_no_kernel_for_gfx1100

constexpr auto keys = kdecl::dsl::expand<case_no_kernel_for_gfx1100::set>();
