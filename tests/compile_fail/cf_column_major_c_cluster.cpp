// Must not compile: column-major C runs on tma_wgmma as its transpose, which takes no two-block multicast cluster.
// expect-error: rule::multicast_cluster_unsupported, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_column_major_c_cluster {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcc).tile(128, 128, 64).warps(8, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(intrawave).stages(6).cluster(2, 1));
}  // namespace case_column_major_c_cluster

constexpr auto keys = kdecl::dsl::expand<case_column_major_c_cluster::set>();
