// Column-major C on the sm_90 tma_wgmma kernels. A column-major M x N matrix is, byte for
// byte, its N x M transpose stored row-major, and C^T = B^T A^T: so a key with column-major
// C runs the row-major-C kernel of row_major_c_key(K) (gemm_sm90_config.cuh) on the
// transposed problem -- M and N exchanged, A and B exchanged with their leading dimensions
// and batch strides (each stored operand read as its transpose: a column-major B is a
// row-major B^T), C and the D tensors unchanged in memory (ldc, ldd). No copy, no device
// code of its own: the tile, schedule, epilogue, TMA store and split-K are the row-major
// kernel's, over C^T.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "kdecl/core/status.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_config.cuh"

namespace kdecl::kernels::cuda::sm90 {

// C^T = B^T A^T of a normalized problem with column-major C (any other is returned as is).
inline gemm_problem transposed_for_row_major_c(const gemm_problem& p) {
  if (p.sig.lay.c == layout::row) return p;
  gemm_problem t = p;
  t.sig = row_major_c_signature(p.sig);
  t.m = p.n;
  t.n = p.m;
  t.lda = p.ldb;
  t.ldb = p.lda;
  t.stride_a = p.stride_b;
  t.stride_b = p.stride_a;
  return t;  // ldc, ldd, stride_c, stride_d: the same memory read as C^T and D^T
}

inline gemm_args transposed_for_row_major_c(const gemm_args& a) {
  gemm_args t = a;
  t.a = a.b;
  t.b = a.a;
  return t;
}

template <gemm_key K>
struct gemm_column_major_c {
  static_assert(K.sig.lay.c == layout::col, "gemm_column_major_c serves keys with column-major C");
  static constexpr gemm_key row_key = row_major_c_key(K);
  using row_kernel = gemm<row_key>;
  static constexpr const char* signature_mismatch = "sm90 tma_wgmma: problem signature differs from the kernel's";

  static std::optional<std::string> why_not(const gemm_problem& p, const gemm_args& args) {
    if constexpr (key_unsupported_reason(K) != nullptr) {
      return std::string("sm90 tma_wgmma: ") + key_unsupported_reason(K);
    } else {
      if (!(p.sig == K.sig)) return std::string(signature_mismatch);
      return row_kernel::why_not(transposed_for_row_major_c(p), transposed_for_row_major_c(args));
    }
  }

  static std::size_t workspace_bytes(const gemm_problem& p) {
    if constexpr (key_unsupported_reason(K) != nullptr) {
      return 0;
    } else {
      return row_kernel::workspace_bytes(transposed_for_row_major_c(p));
    }
  }

  // The row-major kernel's launch over C^T; for tests and benchmarks.
  static launch_plan plan(const gemm_problem& p) { return row_kernel::plan(transposed_for_row_major_c(p)); }

  static status run(const gemm_problem& p, const gemm_args& args, void* stream) {
    if constexpr (key_unsupported_reason(K) != nullptr) {
      return status::error(std::string("sm90 tma_wgmma: ") + key_unsupported_reason(K));
    } else {
      // The row-major kernel's run() checks the transposed problem (its why_not) itself.
      if (!(p.sig == K.sig)) return status::error(signature_mismatch);
      return row_kernel::run(transposed_for_row_major_c(p), transposed_for_row_major_c(args), stream);
    }
  }
};

}  // namespace kdecl::kernels::cuda::sm90
