// Must not compile: The preshuffle variant needs preshufflev2.
// expect-error: rule::preshuffle_requires_preshuffle_pipeline, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_preshuffle_needs_preshuffle_pipeline {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), gemm().dtype(fp16).variant(preshuffle).tile(128, 128, 64).warps(2, 2, 1).warp_tile(32, 32, 16).pipeline(compv3));
}  // namespace case_preshuffle_needs_preshuffle_pipeline

constexpr auto keys = kdecl::dsl::expand<case_preshuffle_needs_preshuffle_pipeline::set>();
