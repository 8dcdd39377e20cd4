// Must not compile: a pingpong block holds the cshuffle strips of both consumers (2 x 4 warps x 2304 bytes); 64x128 with 9 stages fits a cooperative block (226 KiB) but not a pingpong one (235 KiB).
// expect-error: rule::stages_do_not_fit_shared_memory, kdecl::arch_id::sm_90
#include "kdecl/dsl/dsl.hpp"

namespace case_pingpong_strips_do_not_fit {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).tile(64, 128, 64).warps(4, 1, 1).warp_tile(16, 128, 16).pipeline(tma_wgmma).epilogue(cshuffle).scheduler(pingpong).stages(9));
}  // namespace case_pingpong_strips_do_not_fit

constexpr auto keys = kdecl::dsl::expand<case_pingpong_strips_do_not_fit::set>();
