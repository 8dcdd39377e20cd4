// Must not compile: Logits soft-cap cannot be combined with a bias.
// expect-error: rule::fmha_logits_soft_cap_requires_no_bias
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_logits_with_bias {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), fmha().dtype(fp16).hdim(128).bias(elementwise_bias).logits_soft_cap(true).tile(128, 128, 32).pipeline(qr));
}  // namespace case_fmha_logits_with_bias

constexpr auto keys = kdecl::dsl::expand<case_fmha_logits_with_bias::set>();
