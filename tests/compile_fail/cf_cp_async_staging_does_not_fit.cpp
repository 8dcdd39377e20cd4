// Must not compile: cp_async's cshuffle stages the whole C tile in fp32 (128 x (256+8) x 4 = 132 KiB) over the ring; sm_86 has 99 KiB.
// expect-error: rule::stages_do_not_fit_shared_memory, kdecl::arch_id::sm_86, 135168, 101376
#include "kdecl/dsl/dsl.hpp"

namespace case_cp_async_staging_does_not_fit {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_86), gemm().dtype(fp16).tile(128, 256, 32).warps(2, 4, 1).warp_tile(64, 64, 16).pipeline(cp_async).stages(2).epilogue(cshuffle));
}  // namespace case_cp_async_staging_does_not_fit

constexpr auto keys = kdecl::dsl::expand<case_cp_async_staging_does_not_fit::set>();
