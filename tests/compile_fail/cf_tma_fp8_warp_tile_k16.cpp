// Must not compile: fp8 wgmma has K = 32: warp_tile k 16 is not offered.
// expect-error: rule::warp_tile_not_offered_for_dtype_on_arch, kdecl::arch_id::sm_90, 16, 128, 16
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_fp8_warp_tile_k16 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtypes(fp8, fp8, bf16).layout(rcr).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma));
}  // namespace case_tma_fp8_warp_tile_k16

constexpr auto keys = kdecl::dsl::expand<case_tma_fp8_warp_tile_k16::set>();
