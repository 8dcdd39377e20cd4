// Host GEMM throughput: fp32 and fp16 (fp32 accumulate), 1024^3, layout rcr.
// Two warm-up runs, then the median of nine timed runs; 64 output elements are
// spot-checked against a double dot product so a wrong kernel cannot post a number.
//
//   g++ -std=c++20 -O2 -Iinclude benchmarks/host_gemm_bench.cpp -pthread
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include "kdecl/kernels/gemm/host/gemm_kernel.hpp"
#include "kdecl/numeric/element_access.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/host_storage.hpp"

namespace {

using namespace kdecl;

constexpr gemm_key bench_key(dtype d) {
  gemm_signature s{};
  s.a = s.b = s.c = s.compute = d;
  s.acc = default_accumulator(d);
  s.lay = rcr;
  // Cache blocking: A block 128x256, B block 256x256; register micro-tile 4x16.
  return kernels::host::host_gemm_key(s, {128, 256, 256}, {4, 16, 1});
}

// Largest relative error of 64 random C(i,j) against a double dot product (rcr).
double spot_check(const gemm_problem& p, const gemm_args& args) {
  std::mt19937 rng(1);
  double worst = 0;
  for (int s = 0; s < 64; ++s) {
    const std::int64_t i = rng() % p.m, j = rng() % p.n;
    double dot = 0, scale = 0;
    for (std::int64_t kk = 0; kk < p.k; ++kk) {
      const double prod = numeric::load_as_double(args.a, p.sig.a, std::size_t(i * p.lda + kk)) *
                          numeric::load_as_double(args.b, p.sig.b, std::size_t(j * p.ldb + kk));
      dot += prod;
      scale += std::fabs(prod);
    }
    const double got = numeric::load_as_double(args.c, p.sig.c, std::size_t(i * p.ldc + j));
    worst = std::max(worst, std::fabs(got - dot) / scale);
  }
  return worst;
}

// Returns false when the kernel fails or its result is wrong.
template <gemm_key K>
bool bench(const char* name, std::int64_t n) {
  using kernel = kernels::gemm_kernel<K, backend::host>;
  gemm_problem p;
  p.sig = K.sig;
  p.sizes(n, n, n).leading_dims(n, n, n).batch_strides(n * n, n * n, n * n);
  const std::size_t es = dtype_size_bytes(K.sig.a);
  std::vector<unsigned char> a(std::size_t(n * n) * es), b(a.size()), c(std::size_t(n * n) * dtype_size_bytes(K.sig.c));
  numeric::fill_uniform(a.data(), K.sig.a, std::size_t(n * n), 1);
  numeric::fill_uniform(b.data(), K.sig.b, std::size_t(n * n), 2);
  gemm_args args;
  args.a = a.data();
  args.b = b.data();
  args.c = c.data();
  if (auto why = kernel::why_not(p, args)) {
    std::printf("%s: cannot run: %s\n", name, why->c_str());
    return false;
  }
  for (int w = 0; w < 2; ++w) (void)kernel::run(p, args, nullptr);
  std::vector<double> seconds;
  for (int r = 0; r < 9; ++r) {
    const auto start = std::chrono::steady_clock::now();
    const status st = kernel::run(p, args, nullptr);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    if (!st.is_ok()) {
      std::printf("%s: run failed: %s\n", name, st.message().c_str());
      return false;
    }
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  const double error = spot_check(p, args);
  const bool correct = error < 1e-3;  // fp16 output rounding is < 2^-11 of the scale
  std::printf("%-28s %5lld^3  median %8.3f ms  %7.1f GFLOP/s  spot-check %.1e %s\n", name,
              static_cast<long long>(n), median * 1e3, p.flops() / median * 1e-9, error,
              correct ? "ok" : "WRONG RESULT");
  return correct;
}

}  // namespace

int main() {
  std::printf("host GEMM, %u hardware threads\n", std::thread::hardware_concurrency());
  bool ok = bench<bench_key(dtype::fp32)>("fp32 (fp32 acc, rcr)", 1024);
  ok = bench<bench_key(dtype::fp16)>("fp16 (fp32 acc, rcr)", 1024) && ok;
  return ok ? 0 : 1;
}
