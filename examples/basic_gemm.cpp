// The main example: kernels declared in an ordinary source file
// (example_kernels.cpp) register themselves before main; the dispatcher picks
// one for a problem on the best device present, runs it, and the result is
// checked against the host reference.
//
// On a machine without a GPU the host backend runs and the output says so.
#include <cstdio>
#include <vector>

#include "kdecl/registry/registry.hpp"
#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/reference/gemm_reference.hpp"
#include "kdecl/runtime/buffer.hpp"

int main() {
  using namespace kdecl;
  const device dev = default_device();
  std::printf("kdecl example: %zu kernels registered; device: %s%s\n", registry::global().size(),
              dev.description.c_str(),
              dev.kind() == backend::host ? " (no GPU found: running on the host backend)" : "");

  const auto problem = gemm_problem{}.sizes(1000, 1024, 768).dtype(dtype::fp16).layout(rcr).normalized();
  gemm_dispatcher dispatcher(dev);
  auto selection = dispatcher.select(problem);
  std::printf("%s\n", selection.explain().c_str());
  if (!selection) return 1;

  // Random inputs on the host, copied to the device; the output poisoned before the run.
  const std::size_t na = problem.m * problem.lda, nb = problem.n * problem.ldb, nc = problem.m * problem.ldc;
  std::vector<kdecl::half> a(na), b(nb), c(nc);  // kdecl::half: CUDA headers have a global half too
  numeric::fill_uniform(a.data(), dtype::fp16, na, 1);
  numeric::fill_uniform(b.data(), dtype::fp16, nb, 2);
  buffer da(dev, na * 2), db(dev, nb * 2), dc(dev, nc * 2);
  da.upload(a);
  db.upload(b);
  dc.fill_bytes(0xFF);

  gemm_args args{da.data(), db.data(), dc.data()};
  if (auto st = dispatcher.run(problem, args); !st) {
    std::printf("run failed: %s\n", st.message().c_str());
    return 1;
  }
  if (auto st = synchronize(dev); !st) {
    std::printf("device error: %s\n", st.message().c_str());
    return 1;
  }
  dc.download(c.data(), nc * 2);

  const auto ref = reference::gemm(problem, gemm_args{a.data(), b.data(), nullptr});
  const double err = reference::relative_error(problem, c.data(), ref);
  const double tol = reference::tolerance(problem.sig);
  std::printf("relative Frobenius error vs host reference: %.3e (tolerance %.0e): %s\n", err, tol,
              reference::passes(err, tol) ? "PASS" : "FAIL");
  return reference::passes(err, tol) ? 0 : 1;
}
