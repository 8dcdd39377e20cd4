// Must not compile: 256x256 with one consumer warpgroup needs 512 fp32 accumulators per thread; tma_wgmma allows 128 (more spills).
// expect-error: rule::accumulators_per_thread_exceed_register_cap, kdecl::arch_id::sm_90, 512, 128, 128
#include "kdecl/dsl/dsl.hpp"

namespace case_accumulators_exceed_cap_tma {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(256, 256, 64).warps(4, 1, 1).warp_tile(16, 256, 16).pipeline(tma_wgmma));
}  // namespace case_accumulators_exceed_cap_tma

constexpr auto keys = kdecl::dsl::expand<case_accumulators_exceed_cap_tma::set>();
