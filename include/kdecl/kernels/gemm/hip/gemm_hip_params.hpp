// Kernel arguments of the HIP GEMM: one plain struct passed by value.
// Offsets inside one matrix are 32-bit (the dispatcher and why_not guarantee
// they fit); batch strides are 64-bit.
#pragma once

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::kernels::hip {

struct gemm_hip_params {
  const void* a;
  const void* b;
  void* c;
  const void* d[max_d_tensors];
  int m, n, k, batch;
  int lda, ldb, ldc, ldd;
  long long stride_a, stride_b, stride_c, stride_d;
  float alpha;  // already multiplied by product_scale() for fp8/bf8 on gfx942
  float beta;
};

}  // namespace kdecl::kernels::hip
