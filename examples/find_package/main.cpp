// Runs a GEMM on the host with the consumer's own kernel and checks it.
#include <cstdio>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/runtime/gemm_check.hpp"

int main() {
  using namespace kdecl;
  auto sets = registry::global().set_names();
  bool mine = false;
  for (const auto& s : sets) mine = mine || s == "consumer_gemm";
  std::printf("%zu kernels in %zu sets registered (consumer_gemm %s)\n", registry::global().size(), sets.size(),
              mine ? "present" : "MISSING");
  const auto problem = gemm_problem{}.sizes(100, 70, 33).dtype(dtype::fp32).layout(rcr);
  gemm_dispatcher dispatcher(device::host());
  auto r = run_and_check(dispatcher, problem, 1.0f, 0.0f);
  std::printf("%s: error %.2e (tolerance %.0e) %s\n", r.kernel.c_str(), r.error, r.tolerance, r.passed ? "PASS" : "FAIL");
  return mine && r.passed ? 0 : 1;
}
