// Must not compile: A set needs at least one target.
// expect-error: rule::target_list_empty
#include "kdecl/dsl/dsl.hpp"

namespace case_empty_targets {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set(targets(), gemm().dtype(fp16));
}  // namespace case_empty_targets

constexpr auto keys = kdecl::dsl::expand<case_empty_targets::set>();
