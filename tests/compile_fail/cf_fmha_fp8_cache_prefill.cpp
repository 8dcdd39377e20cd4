// Must not compile: an fp8 cache is read by the decode and append kernels only, not by batch_prefill.
// expect-error: rule::fmha_cache_dtype_not_offered, kdecl::arch_id::sm_80
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_fp8_cache_prefill {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set =
    kernel_set(targets(sm_80), fmha().family(batch_prefill).mode(group_mode).dtype(fp16).kv_cache(fp8).hdim(128)
                                   .pipeline(mma_sync).tile(128, 64).warps(8, 1, 1).pad(true, true, true, true));
}  // namespace case_fmha_fp8_cache_prefill

constexpr auto keys = kdecl::dsl::expand<case_fmha_fp8_cache_prefill::set>();
