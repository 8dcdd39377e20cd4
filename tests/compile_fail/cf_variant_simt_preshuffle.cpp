// Must not compile: cp_async builds preshuffled B only on tensor cores: the exact-fp32 (SIMT) offer has no preshuffle variant.
// expect-error: rule::variant_not_offered_for_dtype, kdecl::arch_id::sm_80, 1
#include "kdecl/dsl/dsl.hpp"

namespace case_variant_simt_preshuffle {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_80), gemm().dtype(fp32).compute(fp32).variant(preshuffle).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 1).pipeline(cp_async));
}  // namespace case_variant_simt_preshuffle

constexpr auto keys = kdecl::dsl::expand<case_variant_simt_preshuffle::set>();
