// The double-precision GEMM reference every kernel is checked against.
//
//   C = ew(alpha * op(A)·op(B) + beta * C_old + sum_i D_i)
//
// computed in double from the stored input values (so fp16/fp8 inputs are
// taken exactly; tf32 compute is modelled only where a caller names the
// rounding the kernel applies to fp32 inputs: relative_error_over_rows),
// honouring every dtype, layout, leading dimension, batch stride, multi_d op,
// the preshuffled B layout and the block_scaled variant's scales (each 128-deep slice of
// the dot product times its A and B scales, summed in double). Floating C is returned unrounded; integer C is
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
#include "kdecl/numeric/tf32.hpp"

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
  if (p.sig.variant == gemm_variant::block_scaled && (p.scales.ld_a <= 0 || p.scales.ld_b <= 0))
    throw std::invalid_argument("reference::gemm: problem is not normalized (a scale leading dimension is 0)");
}

inline void require_scales(const gemm_problem& p, const gemm_args& args) {
  if (p.sig.variant == gemm_variant::block_scaled && (args.scale_a == nullptr || args.scale_b == nullptr))
    throw std::invalid_argument("reference::gemm: the block_scaled variant needs scale_a and scale_b");
}

// Row i and column j of the product: the sum over k of a_at(k) * b_at(k); for the block_scaled
// variant each 128-deep slice's sum times sa(i, kb) * sb(j / 128, kb), in double.
template <class AAt, class BAt>
double product(const gemm_problem& p, const gemm_args& args, std::int64_t b, std::int64_t i, std::int64_t j, AAt a_at,
               BAt b_at) {
  if (p.sig.variant != gemm_variant::block_scaled) {
    double dot = 0;
    for (std::int64_t kk = 0; kk < p.k; ++kk) dot += a_at(kk) * b_at(kk);
    return dot;
  }
  const block_scale_layout& l = p.scales;
  const float* sa = args.scale_a + b * l.stride_a + i;
  const float* sb = args.scale_b + b * l.stride_b + (j / scale_block_n) * l.ld_b;
  double dot = 0;
  for (std::int64_t kb = 0; kb * scale_block_k < p.k; ++kb) {
    double part = 0;
    for (std::int64_t kk = kb * scale_block_k; kk < std::min<std::int64_t>(p.k, (kb + 1) * scale_block_k); ++kk)
      part += a_at(kk) * b_at(kk);
    dot += part * double(sa[kb * l.ld_a]) * double(sb[kb]);
  }
  return dot;
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

// Element (kk, j) of batch b of B as stored: its layout, or the preshuffled format.
inline std::size_t b_index(const gemm_problem& p, std::int64_t b, std::int64_t kk, std::int64_t j) {
  const std::int64_t at = p.sig.variant == gemm_variant::preshuffle
                              ? std::int64_t(kernels::preshuffled_offset(kk, j, p.k, p.n, bits_of(p.sig.b)))
                              : offset(p.sig.lay.b, p.ldb, kk, j);
  return std::size_t(b * p.stride_b + at);
}

// C(b, i, j) from the product's dot: alpha, beta * C_old (read from args.c), the
// D tensors, the elementwise op, and integer C's rounding and saturation.
inline double finish(const gemm_problem& p, const gemm_args& args, std::int64_t b, std::int64_t i, std::int64_t j,
                     double dot) {
  const gemm_signature& s = p.sig;
  double x = double(args.alpha) * dot;
  if (args.beta != 0.0f)
    x += double(args.beta) *
         numeric::load_as_double(args.c, s.c, std::size_t(b * p.stride_c + offset(s.lay.c, p.ldc, i, j)));
  if (s.variant == gemm_variant::multi_d) {
    for (int t = 0; t < s.num_d; ++t)
      x += numeric::load_as_double(args.d[std::size_t(t)], s.c,
                                   std::size_t(b * p.stride_d + offset(s.lay.c, p.ldd, i, j)));
    x = elementwise_double(s.ew, x);
  }
  if (s.c == dtype::int8) return numeric::saturate_round<std::int8_t>(x);
  if (s.c == dtype::int32) return numeric::saturate_round<std::int32_t>(x);
  return x;
}

}  // namespace detail

inline std::vector<double> gemm(const gemm_problem& p, const gemm_args& args) {
  detail::require_normalized(p);
  detail::require_scales(p, args);
  const gemm_signature& s = p.sig;
  const std::int64_t m = p.m, n = p.n, k = p.k;
  std::vector<double> out(std::size_t(p.batch * m * n));

  std::vector<double> a(std::size_t(m * k)), bt(std::size_t(n * k));  // A row-major, B transposed
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t kk = 0; kk < k; ++kk)
        a[i * k + kk] = numeric::load_as_double(
            args.a, s.a, std::size_t(b * p.stride_a + detail::offset(s.lay.a, p.lda, i, kk)));
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t kk = 0; kk < k; ++kk) bt[j * k + kk] = numeric::load_as_double(args.b, s.b, detail::b_index(p, b, kk, j));

    detail::parallel_rows(m, [&](std::int64_t i) {
      for (std::int64_t j = 0; j < n; ++j) {
        const double dot = detail::product(
            p, args, b, i, j, [&](std::int64_t kk) { return a[i * k + kk]; },
            [&](std::int64_t kk) { return bt[j * k + kk]; });
        out[std::size_t((b * m + i) * n + j)] = detail::finish(p, args, b, i, j, dot);
      }
    });
  }
  return out;
}

// How a kernel turns fp32 inputs into tf32 (see numeric/tf32.hpp). A check that
// compares a tf32 kernel with unrounded inputs fails on cancellation-heavy
// outputs (a 1x1 C of a long dot product): the input rounding, not the kernel,
// is then the error, so the reference rounds as the kernel does.
enum class tf32_inputs { exact, round_nearest, truncate };

// Relative Frobenius error of `out` (C after the run: C's dtype, layout, ldc
// and batch stride) against the reference over some rows of C, each a flat
// index b*m + i in ascending order, or over all rows when `rows` is empty;
// NaN if either side holds a NaN there. Computed on the fly, without a
// reference matrix: the memory is a row of A per thread (k doubles) plus, when
// `b_in_double` is set, one batch of B converted to double (n*k*8 bytes, the
// fast path for checking every row). `args.c` is C before the run (read when
// beta != 0). The sum runs in a fixed order: the result is deterministic.
inline double relative_error_over_rows(const gemm_problem& p, const gemm_args& args, const void* out,
                                       std::span<const std::int64_t> rows, bool b_in_double,
                                       tf32_inputs rounding = tf32_inputs::exact) {
  detail::require_normalized(p);
  detail::require_scales(p, args);
  const gemm_signature& s = p.sig;
  auto operand = [rounding](const void* base, dtype t, std::size_t index) {
    const double x = numeric::load_as_double(base, t, index);
    if (rounding == tf32_inputs::exact || t != dtype::fp32) return x;
    return double(rounding == tf32_inputs::truncate ? truncate_to_tf32(float(x)) : round_to_tf32(float(x)));
  };
  const std::int64_t m = p.m, n = p.n, k = p.k;
  const std::int64_t total = rows.empty() ? p.batch * m : std::int64_t(rows.size());
  auto row_at = [&](std::int64_t idx) { return rows.empty() ? idx : rows[std::size_t(idx)]; };
  const std::int64_t threads = std::max(1u, std::thread::hardware_concurrency());

  numeric::detail::frobenius_accumulator all;
  std::vector<double> bt;
  std::int64_t bt_batch = -1;
  for (std::int64_t first = 0; first < total;) {
    // A block of rows of one batch, [first, last), at most 2^16 of them (bounds the partial sums).
    const std::int64_t b = row_at(first) / m;
    std::int64_t last = first;
    while (last < total && last - first < (std::int64_t{1} << 16) && row_at(last) / m == b) ++last;
    if (b_in_double && bt_batch != b) {
      bt_batch = b;
      bt.resize(std::size_t(n * k));
      detail::parallel_rows(n, [&](std::int64_t j) {
        for (std::int64_t kk = 0; kk < k; ++kk)
          bt[std::size_t(j * k + kk)] = operand(args.b, s.b, detail::b_index(p, b, kk, j));
      });
    }
    // Work items: (row, column chunk), enough of them to keep every thread busy
    // when only a few rows are sampled; one partial sum per item.
    const std::int64_t batch_rows = last - first;
    const std::int64_t chunks = std::clamp<std::int64_t>((4 * threads + batch_rows - 1) / batch_rows, 1,
                                                         std::max<std::int64_t>(1, n / 256));
    const std::int64_t chunk_cols = (n + chunks - 1) / chunks;
    std::vector<numeric::detail::frobenius_accumulator> partial(std::size_t(batch_rows * chunks));
    const bool cache_a = k <= (std::int64_t{1} << 20);  // a row of A in double: at most 8 MiB per thread
    detail::parallel_rows(batch_rows * chunks, [&](std::int64_t item) {
      thread_local std::vector<double> a_row;
      const std::int64_t i = row_at(first + item / chunks) - b * m;
      const std::int64_t j0 = item % chunks * chunk_cols, j1 = std::min(n, j0 + chunk_cols);
      auto a_at = [&](std::int64_t kk) {
        return operand(args.a, s.a, std::size_t(b * p.stride_a + detail::offset(s.lay.a, p.lda, i, kk)));
      };
      if (cache_a) {
        a_row.resize(std::size_t(k));
        for (std::int64_t kk = 0; kk < k; ++kk) a_row[std::size_t(kk)] = a_at(kk);
      }
      auto& acc = partial[std::size_t(item)];
      for (std::int64_t j = j0; j < j1; ++j) {
        double dot = 0;
        if (cache_a && b_in_double) {  // the fast path: two contiguous rows of doubles
          const double* bj = bt.data() + j * k;
          dot = detail::product(
              p, args, b, i, j, [&](std::int64_t kk) { return a_row[std::size_t(kk)]; },
              [&](std::int64_t kk) { return bj[kk]; });
        } else {
          dot = detail::product(
              p, args, b, i, j, [&](std::int64_t kk) { return cache_a ? a_row[std::size_t(kk)] : a_at(kk); },
              [&](std::int64_t kk) {
                return b_in_double ? bt[std::size_t(j * k + kk)] : operand(args.b, s.b, detail::b_index(p, b, kk, j));
              });
        }
        const double got = numeric::load_as_double(
            out, s.c, std::size_t(b * p.stride_c + detail::offset(s.lay.c, p.ldc, i, j)));
        acc.add(got, detail::finish(p, args, b, i, j, dot));
      }
    });
    for (const auto& part : partial) all.merge(part);
    first = last;
  }
  return all.result();
}

// Whether any element of C (after the run) is NaN: an element the kernel never
// wrote still holds the 0xFF poison, a NaN in every floating dtype.
inline bool any_nan(const gemm_problem& p, const void* c) {
  std::atomic<bool> found{false};
  detail::parallel_rows(p.batch * p.m, [&](std::int64_t row) {
    if (found.load(std::memory_order_relaxed)) return;
    const std::int64_t b = row / p.m, i = row % p.m;
    for (std::int64_t j = 0; j < p.n; ++j)
      if (std::isnan(numeric::load_as_double(
              c, p.sig.c, std::size_t(b * p.stride_c + detail::offset(p.sig.lay.c, p.ldc, i, j))))) {
        found = true;
        return;
      }
  });
  return found;
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
