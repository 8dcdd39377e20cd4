// Must not compile: tma_wgmma 64x64, 14 stages fit with the direct epilogue (230656 B) but not with cshuffle's 4 x 2304-byte strips.
// expect-error: rule::stages_do_not_fit_shared_memory, kdecl::arch_id::sm_90, 239872, 232448
#include "kdecl/dsl/dsl.hpp"

namespace case_tma_cshuffle_strips_do_not_fit {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(fp16).tile(64, 64, 64).warps(4, 1, 1).warp_tile(16, 64, 16).pipeline(tma_wgmma).stages(14).epilogue(cshuffle));
}  // namespace case_tma_cshuffle_strips_do_not_fit

constexpr auto keys = kdecl::dsl::expand<case_tma_cshuffle_strips_do_not_fit::set>();
