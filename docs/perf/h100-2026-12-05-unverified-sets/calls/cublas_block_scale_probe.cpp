// Which block-scale mode pairs cuBLASLt's heuristic accepts on this GPU for an e4m3 TN GEMM
// with a bf16 output (M = N = K = 4096), in both operand orders.
#include <cstdio>
#include <cublasLt.h>
#include <cuda_runtime.h>

static const char* name(cublasLtMatmulMatrixScale_t m) {
  switch (m) {
    case CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F: return "SCALAR_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F: return "VEC128_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F: return "BLK128x128_32F";
    case CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F: return "OUTER_VEC_32F";
    default: return "?";
  }
}

int main() {
  int v = 0;
  cublasLtHandle_t h;
  if (cublasLtCreate(&h) != CUBLAS_STATUS_SUCCESS) { std::printf("no cublasLt handle\n"); return 1; }
  std::printf("cublasLt version %zu, cudart %d\n", cublasLtGetVersion(), (cudaRuntimeGetVersion(&v), v));
  const int n = 4096;
  const cublasLtMatmulMatrixScale_t modes[] = {CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F, CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F,
                                               CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, CUBLASLT_MATMUL_MATRIX_SCALE_OUTER_VEC_32F};
  void* ws = nullptr;
  size_t ws_bytes = 64 << 20;
  cudaMalloc(&ws, ws_bytes);
  float* scales = nullptr;
  cudaMalloc(&scales, 1 << 24);
  for (auto ma : modes)
    for (auto mb : modes)
      for (cudaDataType_t out : {CUDA_R_16BF, CUDA_R_32F}) {
        cublasLtMatmulDesc_t op;
        cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        cublasOperation_t t = CUBLAS_OP_T, nn = CUBLAS_OP_N;
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nn, sizeof(nn));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &ma, sizeof(ma));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mb, sizeof(mb));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scales, sizeof(scales));
        cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scales, sizeof(scales));
        cublasLtMatrixLayout_t la, lb, lc;
        cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, n, n, n);
        cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, n, n, n);
        cublasLtMatrixLayoutCreate(&lc, out, n, n, n);
        cublasLtMatmulPreference_t pref;
        cublasLtMatmulPreferenceCreate(&pref);
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes));
        cublasLtMatmulHeuristicResult_t r[4];
        int found = 0;
        const cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, lc, lc, pref, 4, r, &found);
        std::printf("A %-15s B %-15s out %-4s: status %d (%s), %d algorithms\n", name(ma), name(mb),
                    out == CUDA_R_16BF ? "bf16" : "fp32", int(s), cublasLtGetStatusName(s), found);
        cublasLtMatmulPreferenceDestroy(pref);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(op);
      }
  return 0;
}
