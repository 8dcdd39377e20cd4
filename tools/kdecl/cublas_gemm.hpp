// The vendor baseline: one GEMM through cuBLASLt with its top heuristic
// algorithm, mapped from our row/column-major problem to cuBLAS's column-major
// convention (C = A B is computed as C^T = B^T A^T).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::cli {

class cublas_gemm {
 public:
  // Throws std::runtime_error when cuBLASLt cannot express or run the problem.
  cublas_gemm(const gemm_problem& normalized_problem, float alpha, float beta);
  ~cublas_gemm();
  cublas_gemm(const cublas_gemm&) = delete;
  cublas_gemm& operator=(const cublas_gemm&) = delete;

  // Asynchronous launch on the default stream; the block_scaled variant's scales with it.
  void run(const void* a, const void* b, void* c, const float* scale_a = nullptr,
           const float* scale_b = nullptr) const;
  // Reason cuBLASLt cannot run this problem, or empty.
  static std::optional<std::string> unsupported(const gemm_problem& p);

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// A separate elementwise pass out = op(c + d0 + ...), for "cuBLAS then epilogue" baselines.
void launch_elementwise(const gemm_problem& normalized_problem, void* c, const void* const* d);

}  // namespace kdecl::cli
