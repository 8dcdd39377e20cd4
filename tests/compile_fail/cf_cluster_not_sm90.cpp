// Must not compile: Thread-block clusters exist only on sm_90.
// expect-error: rule::cluster_requires_sm_90, kdecl::arch_id::sm_80, 2, 1
#include "kdecl/dsl/dsl.hpp"

namespace case_cluster_not_sm90 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtype(fp16).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(cp_async).cluster(2, 1));
}  // namespace case_cluster_not_sm90

constexpr auto keys = kdecl::dsl::expand<case_cluster_not_sm90::set>();
