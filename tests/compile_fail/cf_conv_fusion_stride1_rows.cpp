// Must not compile: the stride1_rows kernel stores transposed tiles from registers
// and fuses no epilogue (the im2col and halo kernels do).
// expect-error: rule::conv_fusion_not_offered_by_pipeline, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_fusion_stride1_rows {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).specialization(stride1_rows).bias().activation(relu).pipeline(tma_wgmma).epilogue(direct).scheduler(pingpong).tile(128, 64, 64).warps(4, 1, 1).warp_tile(16, 64, 16).stages(6));
}  // namespace case_conv_fusion_stride1_rows

constexpr auto keys = kdecl::dsl::expand<case_conv_fusion_stride1_rows::set>();
