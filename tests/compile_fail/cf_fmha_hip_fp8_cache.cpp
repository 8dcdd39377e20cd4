// Must not compile: kdecl's HIP decode (CK's qr_pagedkv on gfx942) reads a cache in Q's dtype; an fp8
// (e4m3) cache has kernels on sm_80 / sm_90 only.
// expect-error: rule::fmha_cache_dtype_not_offered, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_hip_fp8_cache {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set =
    kernel_set(targets(gfx942), fmha().family(fwd_splitkv).dtype(bf16).kv_cache(fp8).hdim(128).mask(generic_mask)
                                    .pipeline(qr_pagedkv).warps(1, 1, 1).warp_tile(16, 16, 32).tile(16, 64, 32)
                                    .pad(true, true, true, true));
}  // namespace case_fmha_hip_fp8_cache

constexpr auto keys = kdecl::dsl::expand<case_fmha_hip_fp8_cache::set>();
