// Must not compile: Group mode (variable sequence lengths) needs sequence padding.
// expect-error: rule::fmha_group_mode_requires_seq_padding, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_group_mode_padding {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), fmha().dtype(fp16).hdim(128).mode(group_mode).pad(false, false, true, true).tile(128, 128, 32).pipeline(qr));
}  // namespace case_fmha_group_mode_padding

constexpr auto keys = kdecl::dsl::expand<case_fmha_group_mode_padding::set>();
