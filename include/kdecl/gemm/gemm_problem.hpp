// A GEMM problem: C = ew(alpha * op(A) op(B) + beta * C + sum_i D_i), strided-batched.
//
// The problem carries everything selection needs (sizes, dtypes, layouts,
// strides, compute precision); pointers travel separately in gemm_args.
// Leading dimensions and batch strides of 0 mean "packed" and are resolved
// by normalized(). validate() names the offending value and the rule.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_key.hpp"

namespace kdecl {

inline constexpr int max_d_tensors = 4;

struct gemm_problem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;            // 0: packed
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;  // batch strides, 0: packed
  gemm_signature sig{};  // dtypes, layouts, variant, elementwise op, number of D tensors

  // Setters (chainable). dtype() sets A, B and C and derives acc and compute.
  gemm_problem& sizes(std::int64_t m_, std::int64_t n_, std::int64_t k_) { m = m_; n = n_; k = k_; return *this; }
  gemm_problem& batched(std::int64_t b) { batch = b; return *this; }
  gemm_problem& leading_dims(std::int64_t a, std::int64_t b, std::int64_t c) { lda = a; ldb = b; ldc = c; return *this; }
  gemm_problem& batch_strides(std::int64_t a, std::int64_t b, std::int64_t c) { stride_a = a; stride_b = b; stride_c = c; return *this; }
  gemm_problem& dtype(kdecl::dtype all) {
    sig.a = sig.b = sig.c = sig.compute = all; sig.acc = default_accumulator(all); return *this;
  }
  gemm_problem& dtypes(kdecl::dtype a, kdecl::dtype b, kdecl::dtype c) { sig.a = a; sig.b = b; sig.c = c; return *this; }
  gemm_problem& accumulator(kdecl::dtype acc) { sig.acc = acc; return *this; }
  // fp32 data may multiply in tf32 only when the caller says so.
  gemm_problem& compute(kdecl::dtype c) { sig.compute = c; return *this; }
  gemm_problem& layout(gemm_layout l) { sig.lay = l; return *this; }
  gemm_problem& multi_d(elementwise op, int num_d, std::int64_t ld_d = 0, std::int64_t batch_stride_d = 0) {
    sig.variant = gemm_variant::multi_d; sig.ew = op; sig.num_d = num_d; ldd = ld_d; stride_d = batch_stride_d;
    return *this;
  }
  gemm_problem& preshuffled_b() { sig.variant = gemm_variant::preshuffle; return *this; }

  // Rows x columns of each operand as stored (layout decides which is the leading one).
  std::int64_t rows_a() const { return sig.lay.a == kdecl::layout::row ? m : k; }
  std::int64_t cols_a() const { return sig.lay.a == kdecl::layout::row ? k : m; }
  std::int64_t rows_b() const { return sig.lay.b == kdecl::layout::row ? k : n; }
  std::int64_t cols_b() const { return sig.lay.b == kdecl::layout::row ? n : k; }
  std::int64_t rows_c() const { return sig.lay.c == kdecl::layout::row ? m : n; }
  std::int64_t cols_c() const { return sig.lay.c == kdecl::layout::row ? n : m; }

  // Copy with packed defaults filled in; call validate() first or after: both see the same numbers.
  gemm_problem normalized() const;

  // Empty when valid, otherwise one sentence naming the value and the rule it broke.
  std::optional<std::string> validate() const;

  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

// Pointers and scalars of one call. Extension points for operations whose
// arguments do not fit A/B/C live here, typed, rather than beside the registry.
struct gemm_args {
  const void* a = nullptr;
  const void* b = nullptr;
  void* c = nullptr;
  float alpha = 1.0f;
  float beta = 0.0f;                              // C is read only when beta != 0
  std::array<const void*, max_d_tensors> d{};     // multi_d: D tensors, C's dtype and layout, leading dim problem.ldd
  void* workspace = nullptr;                      // for kernels that report workspace_bytes() > 0
  std::size_t workspace_bytes = 0;
};

}  // namespace kdecl
