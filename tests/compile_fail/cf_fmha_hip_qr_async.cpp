// Must not compile: on gfx942 kdecl builds CK's qr pipeline (the HIP/MFMA kernel) but no kernel for
// qr_async; the tables accept the declaration, the expansion refuses to register rules only.
// expect-error: rule::no_kernel_built_for_fmha_pipeline, kdecl::arch_id::gfx942
#include "kdecl/dsl/dsl.hpp"

namespace case_fmha_hip_qr_async {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(gfx942), fmha().dtype(bf16).hdim(128).pipeline(qr_async).tile(128, 128, 32));
}  // namespace case_fmha_hip_qr_async

constexpr auto keys = kdecl::dsl::expand<case_fmha_hip_qr_async::set>();
