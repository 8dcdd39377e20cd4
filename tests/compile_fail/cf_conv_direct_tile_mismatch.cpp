// Must not compile: a direct_conv block of 256 threads with 8-channel vectors has 8 channel lanes
// (64 channels / 8) and so 32 pixel workers; at 2 pixels each they cover 64 output pixels, not the 8x4 tile.
// expect-error: rule::conv_direct_tile_not_threads_x_pixels, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_direct_tile_mismatch {
using namespace kdecl::dsl;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).ndim(2).layout(nhwgc)
    .pipeline(direct_conv).tile(8, 4, 64).warps(8, 1, 1).warp_tile(2, 8, 1).vector_sizes(8, 1, 8));
}  // namespace case_conv_direct_tile_mismatch

constexpr auto keys = kdecl::dsl::expand<case_conv_direct_tile_mismatch::set>();
