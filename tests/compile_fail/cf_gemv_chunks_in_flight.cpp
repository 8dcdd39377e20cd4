// Must not compile: a gemv block of 1 row and 4 columns reading 4 chunks of each per step holds
// (1 + 4) x 4 = 20 16-byte chunks per lane in registers; the kernel allows 16.
// expect-error: rule::gemv_chunks_in_flight_exceed_register_cap, kdecl::arch_id::sm_90, 20, 4, 16
#include "kdecl/dsl/dsl.hpp"

namespace case_gemv_chunks_in_flight {
using namespace kdecl::dsl;
inline constexpr auto set = kernel_set(targets(sm_90), gemm().dtype(bf16).layout(rcr).pipeline(gemv).tile(1, 4, 4096)
                                                           .warps(1, 1, 4).warp_tile(1, 1, 256).stages(1)
                                                           .epilogue(direct).scheduler(intrawave));
}  // namespace case_gemv_chunks_in_flight

constexpr auto keys = kdecl::dsl::expand<case_gemv_chunks_in_flight::set>();
