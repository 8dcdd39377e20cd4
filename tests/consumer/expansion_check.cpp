// What a pass evaluates before it instantiates a kernel: the validation of every
// target and the expansion of its own, here for the CUDA pass of issue 6's set 2
// (5,444 sm_90 keys; the test compiles this with nvcc rather than building those
// kernels, which would take hours) and for the 2,000-key host set.
#include "consumer/declarations.hpp"

namespace consumer_sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto bf16 = kernel_set(CONSUMER_ISSUE_BF16_SET);
inline constexpr auto wide = kernel_set(CONSUMER_WIDE_HOST_SET);
}  // namespace consumer_sets

static_assert(kdecl::dsl::expand_for<consumer_sets::bf16, kdecl::backend::cuda>().size() == 5444);
static_assert(kdecl::dsl::expand_for<consumer_sets::bf16, kdecl::backend::host>().size() == 400);
static_assert(kdecl::dsl::expand_for<consumer_sets::bf16, kdecl::backend::hip>().size() == 0);
static_assert(kdecl::dsl::expand<consumer_sets::wide>().size() == 2000);
