// A GEMM problem: C = ew(alpha * op(A) op(B) + beta * C + sum_i D_i), strided-batched.
// The block_scaled variant (fp8 A and B, as DeepGEMM computes them) scales each 128-deep
// slice of the product: C = alpha * sum_kb sa(i, kb) sb(j / 128, kb) sum_{k in kb} A(i, k) B(k, j)
// + beta * C, with float scales per 1 x 128 block of A and 128 x 128 block of B (block_scale_layout).
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

// The block_scaled variant's blocks: A's scales cover 1 row x 128 of K, B's 128 columns x 128 of K.
inline constexpr int scale_block_k = 128;
inline constexpr int scale_block_n = 128;

// Where the block_scaled variant's float scales lie (element offsets; 0 means packed):
//   sa(i, kb)  at scale_a[batch * stride_a + kb * ld_a + i]   (K-block-major: a tile's rows adjacent)
//   sb(nb, kb) at scale_b[batch * stride_b + nb * ld_b + kb]  (one row of K-blocks per 128 columns)
// kb < ceil(K / 128), nb < ceil(N / 128); packed: ld_a = M, ld_b = ceil(K / 128), one batch's
// scales after another.
struct block_scale_layout {
  std::int64_t ld_a = 0, ld_b = 0;
  std::int64_t stride_a = 0, stride_b = 0;
  constexpr bool operator==(const block_scale_layout&) const = default;
};

struct gemm_problem {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t lda = 0, ldb = 0, ldc = 0, ldd = 0;            // 0: packed
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0, stride_d = 0;  // batch strides, 0: packed
  gemm_signature sig{};  // dtypes, layouts, variant, elementwise op, number of D tensors
  block_scale_layout scales{};  // block_scaled only

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
  // fp8 A and B scaled per block (see block_scale_layout); the scales come in gemm_args.
  gemm_problem& block_scaled(block_scale_layout l = {}) { sig.variant = gemm_variant::block_scaled; scales = l; return *this; }

  // The block_scaled variant's scale blocks along K and N.
  std::int64_t k_blocks() const { return (k + scale_block_k - 1) / scale_block_k; }
  std::int64_t n_blocks() const { return (n + scale_block_n - 1) / scale_block_n; }
  // Floats one batch's A / B scales span, and all batches' (normalized problem).
  std::int64_t scale_a_footprint() const { return scales.ld_a * (k_blocks() - 1) + m; }
  std::int64_t scale_b_footprint() const { return scales.ld_b * (n_blocks() - 1) + k_blocks(); }
  std::int64_t scale_a_elements() const { return (batch - 1) * scales.stride_a + scale_a_footprint(); }
  std::int64_t scale_b_elements() const { return (batch - 1) * scales.stride_b + scale_b_footprint(); }
  // B's scale rows padded to 4 K-blocks (16 bytes), as cuBLASLt and DeepGEMM lay them out.
  std::int64_t aligned_scale_ld_b() const { return (k_blocks() + 3) / 4 * 4; }

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
  const float* scale_a = nullptr;                 // block_scaled: A's and B's scales (problem.scales says where)
  const float* scale_b = nullptr;
};

}  // namespace kdecl
