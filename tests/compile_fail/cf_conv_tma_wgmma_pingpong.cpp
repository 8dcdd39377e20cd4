// Must not compile: the sm_90 convolution's consumers share one tile (intrawave); pingpong is a GEMM schedule only.
// expect-error: rule::conv_scheduler_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_pingpong {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).pipeline(tma_wgmma).scheduler(pingpong).tile(128, 128, 64).warps(4, 1, 1).warp_tile(16, 128, 16));
}  // namespace case_conv_tma_wgmma_pingpong

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_pingpong::set>();
