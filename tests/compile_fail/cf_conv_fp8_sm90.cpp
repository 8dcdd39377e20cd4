// Must not compile: sm_90's GEMM pipeline multiplies fp8, but its convolution kernels gather 16-bit
// data only (conv_offer::fp8_forward_outputs is empty there): an fp8 forward convolution is refused
// by the conv offer, naming what it builds.
// expect-error: rule::conv_dtypes_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fp8_sm90 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc).pipeline(tma_wgmma).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6));
}  // namespace case_conv_fp8_sm90

constexpr auto keys = kdecl::dsl::expand<case_conv_fp8_sm90::set>();
