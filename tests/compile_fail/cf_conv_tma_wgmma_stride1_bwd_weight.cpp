// Must not compile: sm_90's stride1 specialization (halo tiles) is built for 2-D and 3-D
// forward and backward-data convolutions with one group per GEMM; a backward-weight
// declaration names where it is built.
// expect-error: rule::conv_stride1_not_offered_for_signature, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_stride1_bwd_weight {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_weight).dtype(bf16).ndim(2).specialization(stride1).pipeline(tma_wgmma).tile(128, 64, 64).warps(8, 1, 1).warp_tile(16, 64, 16));
}  // namespace case_conv_tma_wgmma_stride1_bwd_weight

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_stride1_bwd_weight::set>();
