// Must not compile: sm_90's convolution kernels take 8-bit floating data forward only (fp8 input and
// weights through each group's fp8 GEMM); a backward-data declaration of fp8 data is refused by the
// conv offer, naming what it builds.
// expect-error: rule::conv_dtypes_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fp8_sm90 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(bwd_data).dtype(fp8).ndim(2).layout(nhwgc).pipeline(tma_wgmma).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6).vector_sizes(1, 1, 1));
}  // namespace case_conv_fp8_sm90

constexpr auto keys = kdecl::dsl::expand<case_conv_fp8_sm90::set>();
