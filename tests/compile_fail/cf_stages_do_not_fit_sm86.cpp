// Must not compile: Explicit 4 stages of 256x128x64 fp16 need 192 KiB > 99 KiB on sm_86.
// expect-error: rule::stages_do_not_fit_shared_memory, kdecl::arch_id::sm_86, 196608, 101376
#include "kdecl/dsl/dsl.hpp"

namespace case_stages_do_not_fit_sm86 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_86), gemm().dtype(fp16).tile(256, 128, 64).warps(4, 2, 1).warp_tile(64, 64, 16).pipeline(cp_async).stages(4));
}  // namespace case_stages_do_not_fit_sm86

constexpr auto keys = kdecl::dsl::expand<case_stages_do_not_fit_sm86::set>();
