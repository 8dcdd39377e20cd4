#include "kdecl/gemm/gemm_problem.hpp"

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
  return p;
}

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
  }

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
  const bool int_a = sig.a == kdecl::dtype::int8;
  if (int_a != (sig.acc == kdecl::dtype::int32))
    return fmt::format("accumulator {} does not suit {} inputs (int8 accumulates in int32, floats in fp32 or fp64)",
                       to_string(sig.acc), to_string(sig.a));

  if (sig.variant == gemm_variant::multi_d) {
    if (sig.num_d < 1 || sig.num_d > max_d_tensors)
      return fmt::format("multi_d needs 1 to {} D tensors, got {}", max_d_tensors, sig.num_d);
  } else {
    if (sig.num_d != 0) return fmt::format("{} D tensors given to a {} GEMM (only multi_d takes D tensors)",
                                           sig.num_d, to_string(sig.variant));
    if (sig.ew != elementwise::pass_through)
      return fmt::format("elementwise op {} needs the multi_d variant", to_string(sig.ew));
  }
  return std::nullopt;
}

}  // namespace kdecl
