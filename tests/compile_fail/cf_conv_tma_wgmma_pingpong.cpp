// Must not compile: a pingpong convolution declares one consumer warpgroup (warps 4x1x1), which the block runs
// twice on alternate tiles; eight warps are the cooperative schedule's.
// expect-error: rule::pingpong_needs_one_consumer_warpgroup, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tma_wgmma_pingpong {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), grouped_conv().direction(fwd).dtype(bf16).pipeline(tma_wgmma).scheduler(pingpong).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16));
}  // namespace case_conv_tma_wgmma_pingpong

constexpr auto keys = kdecl::dsl::expand<case_conv_tma_wgmma_pingpong::set>();
