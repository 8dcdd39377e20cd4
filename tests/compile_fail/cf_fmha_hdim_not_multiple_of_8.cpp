// Must not compile: Head dimensions must be multiples of 8 (CK test_fmha_rules: hdim 65).
// expect-error: rule::fmha_hdim_not_multiple_of_8, kdecl::arch_id::gfx950, 65
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_hdim_not_multiple_of_8 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx950), fmha().dtype(fp16).hdim(65).tile(128, 64, 32).pipeline(qr_async));
}  // namespace case_fmha_hdim_not_multiple_of_8

constexpr auto keys = kdecl::dsl::expand<case_fmha_hdim_not_multiple_of_8::set>();
