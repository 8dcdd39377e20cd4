// Must not compile: the two-block multicast clusters of tma_wgmma are built for the cooperative schedule only, not pingpong.
// expect-error: rule::multicast_cluster_unsupported, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_multicast_cluster_pingpong {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).tile(128, 128, 64).warps(4, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(pingpong).stages(6).cluster(2, 1));
}  // namespace case_multicast_cluster_pingpong

constexpr auto keys = kdecl::dsl::expand<case_multicast_cluster_pingpong::set>();
