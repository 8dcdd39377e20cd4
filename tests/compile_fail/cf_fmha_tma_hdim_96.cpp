// Must not compile: the sm_90 tma_wgmma_ws kernel holds head dims in whole 128-byte rows: it is declared
// with hdim 64, 128, 192 or 256 (a 96 problem runs on the 128 kernel, zero-padded).
// expect-error: rule::fmha_pipeline_requires_hdim_multiple_of_64, kdecl::arch_id::sm_90, 0, 96, 96
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_tma_hdim_96 {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), fmha().dtype(fp16).hdim(96).pipeline(tma_wgmma_ws).warps(8, 1, 1).tile(128, 128));
}  // namespace case_fmha_tma_hdim_96

constexpr auto keys = kdecl::dsl::expand<case_fmha_tma_hdim_96::set>();
