// Must not compile: multi_d takes 1..4 D tensors.
// expect-error: rule::multi_d_num_d_out_of_range, kdecl::arch_id::gfx942, 5, 4
#include "kdecl/dsl/dsl.hpp"

namespace case_multi_d_too_many {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).multi_d(relu, 5).tile(128, 128, 32).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_multi_d_too_many

constexpr auto keys = kdecl::dsl::expand<case_multi_d_too_many::set>();
