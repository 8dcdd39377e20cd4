// The double-precision GEMM reference every kernel is checked against.
//
//   C = ew(alpha * op(A)·op(B) + beta * C_old + sum_i D_i)
//
// computed in double from the stored input values (so fp16/fp8 inputs are
// taken exactly; tf32 compute is NOT modelled: the tolerance absorbs it),
// honouring every dtype, layout, leading dimension, batch stride, multi_d op
// and the preshuffled B layout. Floating C is returned unrounded; integer C is
// rounded to nearest even and saturated, because integer results are compared
// exactly. Independent of the host kernel's code except the shared element
// types and the preshuffle address map (which *defines* that layout).
//
// Results are in logical order: element (b, i, j) at (b*m + i)*n + j, whatever
// C's layout. Call gemm() before running the kernel under test when beta != 0:
// it reads C_old from args.c.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <thread>
#include <vector>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"
#include "kdecl/numeric/element_access.hpp"
#include "kdecl/numeric/relative_error.hpp"

namespace kdecl::reference {

namespace detail {

inline std::int64_t offset(layout l, std::int64_t ld, std::int64_t row, std::int64_t col) {
  return l == layout::row ? row * ld + col : col * ld + row;
}

inline double elementwise_double(elementwise op, double x) {
  switch (op) {
    case elementwise::relu: return x > 0 ? x : 0.0;
    case elementwise::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case elementwise::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case elementwise::tanh: return std::tanh(x);
    case elementwise::pass_through:
    case elementwise::multi_d_add: return x;
  }
  return x;
}

inline void require_normalized(const gemm_problem& p) {
  if (p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0)
    throw std::invalid_argument("reference::gemm: negative size");
  if (p.lda <= 0 || p.ldb <= 0 || p.ldc <= 0 ||
      (p.sig.variant == gemm_variant::multi_d && p.sig.num_d > 0 && p.ldd <= 0))
    throw std::invalid_argument("reference::gemm: problem is not normalized (a leading dimension is 0)");
  if (p.sig.variant == gemm_variant::multi_d && (p.sig.num_d < 0 || p.sig.num_d > max_d_tensors))
    throw std::invalid_argument("reference::gemm: num_d out of range");
}

// Runs body(row) for row in [0, rows) on all hardware threads.
template <class Body>
void parallel_rows(std::int64_t rows, Body body) {
  const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<std::int64_t> next{0};
  auto worker = [&] {
    for (std::int64_t r; (r = next.fetch_add(1)) < rows;) body(r);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < std::min<std::int64_t>(threads, rows); ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
}

}  // namespace detail

inline std::vector<double> gemm(const gemm_problem& p, const gemm_args& args) {
  detail::require_normalized(p);
  const gemm_signature& s = p.sig;
  const int num_d = s.variant == gemm_variant::multi_d ? s.num_d : 0;
  const elementwise ew = s.variant == gemm_variant::multi_d ? s.ew : elementwise::pass_through;
  const bool integer_c = s.c == dtype::int8 || s.c == dtype::int32;
  const std::int64_t m = p.m, n = p.n, k = p.k;
  std::vector<double> out(std::size_t(p.batch * m * n));

  std::vector<double> a(std::size_t(m * k)), bt(std::size_t(n * k));  // A row-major, B transposed
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t kk = 0; kk < k; ++kk)
        a[i * k + kk] = numeric::load_as_double(
            args.a, s.a, std::size_t(b * p.stride_a + detail::offset(s.lay.a, p.lda, i, kk)));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t kk = 0; kk < k; ++kk) {
        const std::int64_t at = s.variant == gemm_variant::preshuffle
            ? std::int64_t(kernels::preshuffled_offset(kk, j, k, n, bits_of(s.b)))
            : detail::offset(s.lay.b, p.ldb, kk, j);
        bt[j * k + kk] = numeric::load_as_double(args.b, s.b, std::size_t(b * p.stride_b + at));
      }

    detail::parallel_rows(m, [&](std::int64_t i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double dot = 0;
        for (std::int64_t kk = 0; kk < k; ++kk) dot += a[i * k + kk] * bt[j * k + kk];
        double x = double(args.alpha) * dot;
        if (args.beta != 0.0f)
          x += double(args.beta) *
               numeric::load_as_double(args.c, s.c, std::size_t(b * p.stride_c + detail::offset(s.lay.c, p.ldc, i, j)));
        for (int t = 0; t < num_d; ++t)
          x += numeric::load_as_double(args.d[std::size_t(t)], s.c,
                                       std::size_t(b * p.stride_d + detail::offset(s.lay.c, p.ldd, i, j)));
        x = detail::elementwise_double(ew, x);
        if (integer_c)
          x = s.c == dtype::int8 ? numeric::saturate_round<std::int8_t>(x) : numeric::saturate_round<std::int32_t>(x);
        out[std::size_t((b * m + i) * n + j)] = x;
      }
    });
  }
  return out;
}

// The output buffer `c` (C's dtype, layout, ldc and batch stride) in the
// reference's logical order.
inline std::vector<double> gather_c(const gemm_problem& p, const void* c) {
  std::vector<double> out(std::size_t(p.batch * p.m * p.n));
  for (std::int64_t b = 0; b < p.batch; ++b)
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        out[std::size_t((b * p.m + i) * p.n + j)] = numeric::load_as_double(
            c, p.sig.c, std::size_t(b * p.stride_c + detail::offset(p.sig.lay.c, p.ldc, i, j)));
  return out;
}

// Relative Frobenius error of a computed C (a host copy of the output buffer)
// against reference values from gemm(); NaN if either holds a NaN.
inline double relative_error(const gemm_problem& p, const void* c, std::span<const double> ref) {
  const std::vector<double> got = gather_c(p, c);
  return numeric::relative_frobenius_error(got, ref);
}

// The accuracy a correct kernel must reach for a signature (team thresholds):
// fp32 1e-5, tf32 1e-3, fp16/bf16 1e-2, integers exact, fp64 1e-12, fp8/bf8
// data 1e-2 (inputs are exact; fp32 accumulation). A narrow C adds its own
// rounding: fp8 C 2^-4, bf8 C 2^-3 (the largest relative rounding step).
constexpr double tolerance(const gemm_signature& s) {
  if (s.acc == dtype::int32) return 0.0;
  double t = 1e-2;
  if (s.compute == dtype::tf32) t = 1e-3;
  else if (s.a == dtype::fp32 && s.b == dtype::fp32) t = 1e-5;
  else if (s.a == dtype::fp64) t = 1e-12;
  if (s.c == dtype::fp16 || s.c == dtype::bf16) t = std::max(t, 1e-2);
  if (s.c == dtype::fp8) t = std::max(t, 0.0625);
  if (s.c == dtype::bf8) t = std::max(t, 0.125);
  return t;
}

// Whether an error passes a tolerance; NaN never does.
constexpr bool passes(double error, double tol) { return error <= tol; }

}  // namespace kdecl::reference
