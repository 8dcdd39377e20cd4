// Must not compile: sm_90's tma_wgmma pipeline gathers convolution operands in 16-byte vectors only (4 fp16 elements are 8 bytes).
// expect-error: rule::conv_vector_bytes_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_bwd_weight_narrow_vector {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_weight).dtype(fp16).pipeline(tma_wgmma).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).vector_sizes(4, 4, 4));
}  // namespace case_conv_tma_wgmma_bwd_weight_narrow_vector

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_bwd_weight_narrow_vector::set>();
