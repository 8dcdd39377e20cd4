// Must not compile: the pingpong schedule runs two copies of one consumer warpgroup, so its warps must be (4,1,1); (8,1,1) would be four consumer warpgroups.
// expect-error: rule::pingpong_needs_one_consumer_warpgroup, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_pingpong_two_warpgroups {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(pingpong).stages(4));
}  // namespace case_pingpong_two_warpgroups

constexpr auto keys = kdecl::dsl::expand<case_pingpong_two_warpgroups::set>();
