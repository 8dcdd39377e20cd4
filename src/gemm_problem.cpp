#include "kdecl/gemm/gemm_problem.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace kdecl {

gemm_problem gemm_problem::normalized() const {
  gemm_problem p = *this;
  if (p.lda == 0) p.lda = p.cols_a();
  if (p.ldb == 0) p.ldb = p.cols_b();
  if (p.ldc == 0) p.ldc = p.cols_c();
  if (p.ldd == 0) p.ldd = p.ldc;
  if (p.stride_a == 0) p.stride_a = p.lda * p.rows_a();
  if (p.stride_b == 0)
    p.stride_b = p.sig.variant == gemm_variant::preshuffle
                     ? kernels::preshuffled_elements(p.k, p.n, bits_of(p.sig.b))  // the shuffled format pads
                     : p.ldb * p.rows_b();
  if (p.stride_c == 0) p.stride_c = p.ldc * p.rows_c();
  if (p.stride_d == 0) p.stride_d = p.ldd * p.rows_c();
  if (p.sig.variant == gemm_variant::block_scaled) {
    block_scale_layout& s = p.scales;
    if (s.ld_a == 0) s.ld_a = p.m;
    if (s.ld_b == 0) s.ld_b = p.k_blocks();
    if (s.stride_a == 0) s.stride_a = s.ld_a * p.k_blocks();
    if (s.stride_b == 0) s.stride_b = s.ld_b * p.n_blocks();
  }
  return p;
}

namespace {

using wide = __int128;  // spans of invalid problems may exceed 64 bits; compute them without overflow

// Products saturate here: far beyond any addressable span, far below int128's limit.
constexpr wide saturation = wide(1) << 100;

wide mul(wide a, wide b) {
  if (a == 0 || b == 0) return 0;
  return a > saturation / b ? saturation : std::min(a * b, saturation);
}

// Elements an operand spans, as normalized() will compute them.
wide span_elements(std::int64_t batch, std::int64_t stride, std::int64_t rows, std::int64_t ld) {
  const wide one_matrix = mul(ld, rows);
  return mul(batch - 1, stride != 0 ? wide(stride) : one_matrix) + one_matrix;
}

// preshuffled_elements() without overflow (the same format constants).
wide preshuffled_elements_wide(std::int64_t k, std::int64_t n, int bits) {
  using f = kernels::preshuffle_format;
  const wide per = f::block_k_bytes * 8 / bits;
  return mul(mul((wide(n) + f::block_cols - 1) / f::block_cols, (wide(k) + per - 1) / per),
             f::block_bytes * 8 / bits);
}

std::string to_decimal(wide v) {
  std::string out;
  do out.insert(out.begin(), char('0' + int(v % 10))); while ((v /= 10) > 0);
  return out;
}

}  // namespace

std::optional<std::string> gemm_problem::validate() const {
  auto positive = [](const char* what, std::int64_t v) -> std::optional<std::string> {
    if (v <= 0) return fmt::format("{} = {} must be positive", what, v);
    return std::nullopt;
  };
  for (auto [what, v] : {std::pair{"M", m}, {"N", n}, {"K", k}, {"batch", batch}})
    if (auto e = positive(what, v)) return e;

  for (auto [what, v] : {std::pair{"lda", lda}, {"ldb", ldb}, {"ldc", ldc}, {"ldd", ldd},
                         {"batch stride of A", stride_a}, {"batch stride of B", stride_b},
                         {"batch stride of C", stride_c}, {"batch stride of D", stride_d}})
    if (v < 0) return fmt::format("{} = {} must not be negative (0 means packed)", what, v);

  // The signature first: the sizes below depend on the dtypes (element bits, the preshuffled format).
  for (auto [what, d] : {std::pair{"A", sig.a}, {"B", sig.b}, {"C", sig.c}, {"accumulator", sig.acc},
                         {"compute", sig.compute}})
    if (d == kdecl::dtype::any) return fmt::format("dtype of {} is not set", what);
  if (sig.a != sig.b && !((sig.a == kdecl::dtype::fp8 || sig.a == kdecl::dtype::bf8) &&
                          (sig.b == kdecl::dtype::fp8 || sig.b == kdecl::dtype::bf8)))
    return fmt::format("dtype of A ({}) and B ({}) differ; only fp8/bf8 may be mixed", to_string(sig.a),
                       to_string(sig.b));
  if (sig.a == kdecl::dtype::tf32 || sig.b == kdecl::dtype::tf32 || sig.c == kdecl::dtype::tf32)
    return "tf32 is a compute precision, not a storage dtype: use dtype(fp32).compute(tf32)";
  if (sig.compute == kdecl::dtype::tf32 && sig.a != kdecl::dtype::fp32)
    return fmt::format("compute tf32 requires fp32 A and B, got {}", to_string(sig.a));
  if (sig.compute != kdecl::dtype::tf32 && sig.compute != sig.a)
    return fmt::format("compute dtype {} does not match A's dtype {} (only fp32 data may compute in tf32)",
                       to_string(sig.compute), to_string(sig.a));
  const bool int_a = sig.a == kdecl::dtype::int8 || sig.a == kdecl::dtype::int4;
  if (int_a != (sig.acc == kdecl::dtype::int32))
    return fmt::format("accumulator {} does not suit {} inputs (int8 and int4 accumulate in int32, floats in fp32 "
                       "or fp64)",
                       to_string(sig.acc), to_string(sig.a));

  const bool block_scaled = sig.variant == gemm_variant::block_scaled;
  if (block_scaled) {
    const auto float8 = [](kdecl::dtype d) { return d == kdecl::dtype::fp8 || d == kdecl::dtype::bf8; };
    if (!float8(sig.a) || !float8(sig.b))
      return fmt::format("the block_scaled variant scales fp8/bf8 A and B, got {} and {}", to_string(sig.a),
                         to_string(sig.b));
    if (sig.c != kdecl::dtype::fp16 && sig.c != kdecl::dtype::bf16 && sig.c != kdecl::dtype::fp32)
      return fmt::format("the block_scaled variant writes an fp16, bf16 or fp32 C, got {}", to_string(sig.c));
  } else if (!(scales == block_scale_layout{})) {
    return fmt::format("scale layout given to a {} GEMM (only block_scaled takes scales)", to_string(sig.variant));
  }
  for (auto [what, v] : {std::pair{"leading dimension of A's scales", scales.ld_a},
                         {"leading dimension of B's scales", scales.ld_b},
                         {"batch stride of A's scales", scales.stride_a},
                         {"batch stride of B's scales", scales.stride_b}})
    if (v < 0) return fmt::format("{} = {} must not be negative (0 means packed)", what, v);

  if (sig.variant == gemm_variant::multi_d) {
    if (sig.num_d < 1 || sig.num_d > max_d_tensors)
      return fmt::format("multi_d needs 1 to {} D tensors, got {}", max_d_tensors, sig.num_d);
  } else {
    if (sig.num_d != 0) return fmt::format("{} D tensors given to a {} GEMM (only multi_d takes D tensors)",
                                           sig.num_d, to_string(sig.variant));
    if (sig.ew != elementwise::pass_through)
      return fmt::format("elementwise op {} needs the multi_d variant", to_string(sig.ew));
  }

  // Every operand must be addressable with 64-bit byte offsets; checked in 128 bits
  // before normalized() multiplies anything, so that no product below can overflow.
  {
    auto too_large = [&](const char* what, wide elements, kdecl::dtype d) -> std::optional<std::string> {
      const wide bytes = (mul(elements, bits_of(d)) + 7) / 8;
      const wide limit = std::numeric_limits<std::int64_t>::max();  // offsets are 64-bit in elements and in bytes
      if (bytes > limit || elements > limit)
        return fmt::format("{} spans {}{} elements ({}{} bytes): beyond 64-bit offsets (2^63 - 1 elements or bytes "
                           "at most)",
                           what,
                           elements >= saturation ? "over " : "", to_decimal(elements),
                           bytes >= saturation / 8 ? "over " : "", to_decimal(bytes));
      return std::nullopt;
    };
    const std::int64_t la = lda ? lda : cols_a(), lb = ldb ? ldb : cols_b(), lc = ldc ? ldc : cols_c();
    const std::int64_t ld_d = ldd ? ldd : lc;
    if (auto e = too_large("A", span_elements(batch, stride_a, rows_a(), la), sig.a)) return e;
    if (sig.variant == gemm_variant::preshuffle) {
      const wide one = preshuffled_elements_wide(k, n, bits_of(sig.b));
      if (auto e = too_large("B", mul(batch - 1, stride_b ? wide(stride_b) : one) + one, sig.b)) return e;
    }
    // (Also for a preshuffled B: its ldb still describes the logical matrix, and code multiplies it.)
    if (auto e = too_large("B", span_elements(batch, stride_b, rows_b(), lb), sig.b)) return e;
    if (auto e = too_large("C", span_elements(batch, stride_c, rows_c(), lc), sig.c)) return e;
    if (sig.variant == gemm_variant::multi_d)
      if (auto e = too_large("D", span_elements(batch, stride_d, rows_c(), ld_d), sig.c)) return e;
    if (block_scaled) {
      const std::int64_t kb = (k + scale_block_k - 1) / scale_block_k, nb = (n + scale_block_n - 1) / scale_block_n;
      if (auto e = too_large("A's scales", span_elements(batch, scales.stride_a, kb, scales.ld_a ? scales.ld_a : m),
                             kdecl::dtype::fp32))
        return e;
      if (auto e = too_large("B's scales", span_elements(batch, scales.stride_b, nb, scales.ld_b ? scales.ld_b : kb),
                             kdecl::dtype::fp32))
        return e;
    }
  }

  auto p = normalized();
  auto ld_rule = [](const char* what, std::int64_t ld, std::int64_t row, const char* lay) -> std::optional<std::string> {
    if (ld < row)
      return fmt::format("{} = {} is smaller than the stored row length {} ({})", what, ld, row, lay);
    return std::nullopt;
  };
  auto lay = [](kdecl::layout l) { return l == kdecl::layout::row ? "row-major" : "column-major"; };
  if (auto e = ld_rule("lda", p.lda, p.cols_a(), lay(sig.lay.a))) return e;
  if (auto e = ld_rule("ldb", p.ldb, p.cols_b(), lay(sig.lay.b))) return e;
  if (auto e = ld_rule("ldc", p.ldc, p.cols_c(), lay(sig.lay.c))) return e;
  if (sig.variant == gemm_variant::multi_d)
    if (auto e = ld_rule("ldd", p.ldd, p.cols_c(), lay(sig.lay.c))) return e;
  if (block_scaled) {
    if (p.scales.ld_a < m)
      return fmt::format("leading dimension of A's scales = {} is smaller than M = {} (one scale per row and 128 of K, "
                         "rows adjacent)",
                         p.scales.ld_a, m);
    if (p.scales.ld_b < p.k_blocks())
      return fmt::format("leading dimension of B's scales = {} is smaller than ceil(K / 128) = {} (one scale per 128 "
                         "columns and 128 of K, K-blocks adjacent)",
                         p.scales.ld_b, p.k_blocks());
  }

  if (batch > 1) {
    auto stride_rule = [](const char* what, std::int64_t s, std::int64_t footprint) -> std::optional<std::string> {
      if (s < footprint)
        return fmt::format("batch stride of {} = {} is smaller than one matrix ({} elements): batches would overlap",
                           what, s, footprint);
      return std::nullopt;
    };
    if (auto e = stride_rule("A", p.stride_a, p.lda * (p.rows_a() - 1) + p.cols_a())) return e;
    const std::int64_t b_footprint = sig.variant == gemm_variant::preshuffle
                                         ? kernels::preshuffled_elements(k, n, bits_of(sig.b))
                                         : p.ldb * (p.rows_b() - 1) + p.cols_b();
    if (auto e = stride_rule("B", p.stride_b, b_footprint)) return e;
    if (auto e = stride_rule("C", p.stride_c, p.ldc * (p.rows_c() - 1) + p.cols_c())) return e;
    if (block_scaled) {
      if (auto e = stride_rule("A's scales", p.scales.stride_a, p.scale_a_footprint())) return e;
      if (auto e = stride_rule("B's scales", p.scales.stride_b, p.scale_b_footprint())) return e;
    }
  }
  return std::nullopt;
}

}  // namespace kdecl
