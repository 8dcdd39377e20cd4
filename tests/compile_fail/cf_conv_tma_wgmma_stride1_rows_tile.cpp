// Must not compile: sm_90's stride1_rows specialization streams input rows into tiles of 64,
// 128 or 192 pixels x 64 output channels x 64 input channels; a 128-channel tile names the
// shapes it builds.
// expect-error: rule::conv_stride1_rows_shape_not_built, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_stride1_rows_tile {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).specialization(stride1_rows).pipeline(tma_wgmma).epilogue(direct).scheduler(pingpong).tile(128, 128, 64).warps(4, 1, 1).warp_tile(16, 128, 16).stages(6));
}  // namespace case_conv_tma_wgmma_stride1_rows_tile

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_stride1_rows_tile::set>();
