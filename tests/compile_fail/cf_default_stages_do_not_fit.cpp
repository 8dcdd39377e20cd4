// Must not compile: Defaults are resolved from the table and checked, never silently changed: cp_async's default 3 stages of 128x256x64 fp16 need 144 KiB > 99 KiB on sm_86.
// expect-error: rule::stages_do_not_fit_shared_memory, kdecl::arch_id::sm_86, 147456, 101376
#include "kdecl/dsl/dsl.hpp"

namespace case_default_stages_do_not_fit {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_86), gemm().dtype(fp16).tile(128, 256, 64).warps(2, 4, 1).warp_tile(64, 64, 16).pipeline(cp_async));
}  // namespace case_default_stages_do_not_fit

constexpr auto keys = kdecl::dsl::expand<case_default_stages_do_not_fit::set>();
