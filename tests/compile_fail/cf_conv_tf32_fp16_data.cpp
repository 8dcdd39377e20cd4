// Must not compile: tf32 is how fp32 data reaches tensor cores; fp16 data multiplies in fp16.
// expect-error: rule::tf32_compute_requires_fp32_data, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_conv_tf32_fp16_data {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), grouped_conv().dtype(fp16).compute(tf32).pipeline(cp_async).tile(64, 64, 16).warps(2, 2, 1).warp_tile(32, 32, 8));
}  // namespace case_conv_tf32_fp16_data

constexpr auto keys = kdecl::dsl::expand<case_conv_tf32_fp16_data::set>();
