// Must not compile: tf32 compute is only for fp32 data.
// expect-error: rule::tf32_compute_requires_fp32_data, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_tf32_on_fp16_data {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).compute(tf32).tile(128, 128, 32).warps(2, 2, 1).warp_tile(64, 64, 16).pipeline(cp_async));
}  // namespace case_tf32_on_fp16_data

constexpr auto keys = kdecl::dsl::expand<case_tf32_on_fp16_data::set>();
