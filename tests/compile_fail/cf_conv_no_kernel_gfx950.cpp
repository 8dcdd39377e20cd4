// Must not compile: The gfx950 tables accept this convolution (CK Tile's rules), but kdecl builds no kernel for gfx950 (its HIP convolutions are built for gfx90a and gfx942).
// expect-error: rule::no_kernel_built_for_arch, kdecl::arch_id::gfx950
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_no_kernel_gfx950 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950), grouped_conv().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_conv_no_kernel_gfx950

constexpr auto keys = kdecl::dsl::expand<case_conv_no_kernel_gfx950::set>();
