// Checks what the consumer's declarations registered: for every set, exactly
// the keys the DSL expands for the targets of the backends its file was built
// for (CONSUMER_BACKENDS_* bit masks: host 1, cuda 2, hip 4), under the set's
// name, with no duplicate; then runs a host GEMM on a consumer kernel and
// checks it against the reference. Exit code 0 when everything holds.
#include <cstdio>
#include <set>
#include <string>

#include "consumer/declarations.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/gemm/gemm_name.hpp"
#include "kdecl/registry/registry.hpp"
#include "kdecl/runtime/gemm_check.hpp"

namespace {

using namespace kdecl;

constexpr unsigned backend_bit(backend b) { return b == backend::host ? 1u : b == backend::cuda ? 2u : 4u; }

template <class Set>
bool check_set(const char* name, const Set& set, unsigned built) {
  std::set<std::string> expected;
  const auto error = dsl::for_each_key(set, [&](const gemm_key& k) {
    if (built & backend_bit(backend_of(k.algo.arch))) expected.insert(kernel_name(k));
  });
  if (!error.ok()) {
    std::printf("%s: the declaration does not expand at run time\n", name);
    return false;
  }
  const auto registered = registry::global().filter([&](const registered_kernel& r) { return r.set == name; });
  std::size_t missing = 0;
  for (const auto& n : expected) missing += !registry::global().find(n);
  const bool ok = missing == 0 && registered.size() == expected.size();
  std::printf("%-24s backends %u: %zu kernels registered, %zu expected, %zu missing: %s\n", name, built,
              registered.size(), expected.size(), missing, ok ? "ok" : "FAIL");
  return ok;
}

}  // namespace

int main() {
  using namespace kdecl::dsl;
  using kdecl::dsl::any;
  bool ok = true;
  ok &= check_set("consumer_wide_host", kernel_set(CONSUMER_WIDE_HOST_SET), CONSUMER_BACKENDS_EXECUTABLE);
  ok &= check_set("consumer_issue_fp32_crr", kernel_set(CONSUMER_ISSUE_FP32_CRR_SET), CONSUMER_BACKENDS_EXECUTABLE);
  ok &= check_set("consumer_library_host", kernel_set(CONSUMER_LIBRARY_HOST_SET), CONSUMER_BACKENDS_LIBRARY);
  ok &= check_set("consumer_library_cuda", kernel_set(CONSUMER_LIBRARY_CUDA_SET), CONSUMER_BACKENDS_LIBRARY);
  ok &= check_set("consumer_library_hip", kernel_set(CONSUMER_LIBRARY_HIP_SET), CONSUMER_BACKENDS_LIBRARY);
  const auto check = kdecl::registry::global().check();
  std::printf("registry: %zu kernels, %s\n", kdecl::registry::global().size(),
              check.is_ok() ? "no duplicate" : check.message().c_str());
  ok &= check.is_ok();

  // One of the 2,000: the dispatcher's choice among the consumer's fp32 rcr kernels.
  const auto problem = kdecl::gemm_problem{}.sizes(97, 131, 45).dtype(kdecl::dtype::fp32).layout(kdecl::rcr);
  kdecl::gemm_dispatcher dispatcher(kdecl::device::host());
  const auto r = kdecl::run_and_check(dispatcher, problem, 1.0f, 0.0f);
  std::printf("%s: error %.2e (tolerance %.0e) %s\n", r.kernel.c_str(), r.error, r.tolerance, r.passed ? "PASS" : "FAIL");
  ok &= r.passed;
  return ok ? 0 : 1;
}
