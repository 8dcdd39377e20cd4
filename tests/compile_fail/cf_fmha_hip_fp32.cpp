// Must not compile: CK's tables offer fp32 attention on gfx90a, but kdecl's HIP kernel for the qr
// pipeline (kernels/fmha/hip/) computes fp16 and bf16 only.
// expect-error: rule::fmha_pipeline_does_not_compute_dtype, kdecl::arch_id::gfx90a
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_hip_fp32 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx90a), fmha().dtype(fp32).hdim(128).pipeline(qr).warp_tile(16, 16, 16).tile(128, 128, 32));
}  // namespace case_fmha_hip_fp32

constexpr auto keys = kdecl::dsl::expand<case_fmha_hip_fp32::set>();
