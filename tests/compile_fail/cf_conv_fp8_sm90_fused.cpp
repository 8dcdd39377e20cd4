// Must not compile: sm_90's 8-bit forward convolutions are plain implicit GEMMs on the fp8 GEMM
// (no specialization, one group per GEMM, no fused epilogue); a bias fused into an fp8 key is
// refused by the conv offer (the host kernels fuse one).
// expect-error: rule::conv_fp8_forward_not_plain, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fp8_sm90_fused {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtypes(fp8, fp8, bf16).ndim(2).layout(nhwgc).bias().pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).tile(128, 128, 128).warps(8, 1, 1).warp_tile(16, 128, 32).stages(6).vector_sizes(1, 1, 1));
}  // namespace case_conv_fp8_sm90_fused

constexpr auto keys = kdecl::dsl::expand<case_conv_fp8_sm90_fused::set>();
