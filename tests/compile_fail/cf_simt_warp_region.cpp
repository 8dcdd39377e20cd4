// Must not compile: Exact fp32 (SIMT): a warp's region must be a multiple of 16 x 32; 64x32 over 2x2 warps gives n 16.
// expect-error: rule::warp_region_not_multiple_of_simt_grid, kdecl::arch_id::sm_80, 1, 16, 32
#include "kdecl/dsl/dsl.hpp"

namespace case_simt_warp_region {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtype(fp32).compute(fp32).tile(64, 32, 8).warps(2, 2, 1).warp_tile(16, 16, 1).pipeline(cp_async));
}  // namespace case_simt_warp_region

constexpr auto keys = kdecl::dsl::expand<case_simt_warp_region::set>();
