#include "cublas_gemm.hpp"

#include <stdexcept>
#include <utility>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <fmt/format.h>

namespace kdecl::cli {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(fmt::format("cuBLASLt {}: {}", what, cublasLtGetStatusString(s)));
}

std::optional<cudaDataType_t> cuda_type(dtype d) {
  switch (d) {
    case dtype::fp16: return CUDA_R_16F;
    case dtype::bf16: return CUDA_R_16BF;
    case dtype::fp32: return CUDA_R_32F;
    case dtype::fp64: return CUDA_R_64F;
    case dtype::fp8: return CUDA_R_8F_E4M3;
    case dtype::bf8: return CUDA_R_8F_E5M2;
    case dtype::int8: return CUDA_R_8I;
    case dtype::int32: return CUDA_R_32I;
    default: return std::nullopt;
  }
}

constexpr std::size_t workspace_bytes = 64u << 20;

// A column-major C is, byte for byte, its transpose stored row-major, and C^T = B^T A^T: the
// problem with M and N, A and B (dtypes, layouts read as their transposes, leading dimensions,
// batch strides) exchanged has a row-major C, which the mapping below takes. Row-major C: as is.
gemm_problem with_row_major_c(gemm_problem p) {
  if (p.sig.lay.c == layout::row) return p;
  auto flip = [](layout l) { return l == layout::row ? layout::col : layout::row; };
  const gemm_layout lay = p.sig.lay;
  std::swap(p.m, p.n);
  std::swap(p.lda, p.ldb);
  std::swap(p.stride_a, p.stride_b);
  std::swap(p.sig.a, p.sig.b);
  p.sig.lay = {flip(lay.b), flip(lay.a), layout::row};
  return p;
}

}  // namespace

struct cublas_gemm::impl {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;
  cublasLtMatrixLayout_t lc16 = nullptr;  // C's description beside an fp8 D (fp8_output)
  cublasLtMatmulHeuristicResult_t algo{};
  void* workspace = nullptr;
  float alpha = 1, beta = 0;
  std::int32_t ialpha = 1, ibeta = 0;
  bool integer = false;
  bool swap_ab = false;  // column-major C: run as C^T = B^T A^T (with_row_major_c)
  bool block_scaled = false;  // scale pointers set per launch (the operand sets rotate)
};

std::optional<std::string> cublas_gemm::unsupported(const gemm_problem& problem) {
  const gemm_problem p = with_row_major_c(problem);
  const auto& s = p.sig;
  if (!cuda_type(s.a) || !cuda_type(s.b) || !cuda_type(s.c))
    return fmt::format("cuBLASLt has no type for {}/{}/{}", to_string(s.a), to_string(s.b), to_string(s.c));
  if (s.variant == gemm_variant::preshuffle) return "cuBLASLt has no pre-shuffled B";
  const bool eight_bit = bits_of(s.a) == 8;
  if (eight_bit && !(s.lay.a == layout::row && s.lay.b == layout::col))
    return "cuBLASLt 8-bit GEMMs need the TN layout (our rcr, or rcc with column-major C)";
  if (s.variant == gemm_variant::block_scaled) {
    // cuBLASLt 12.9+ on sm_90 (VEC128_32F / BLK128x128_32F scale modes): e4m3 data, A's scales with
    // rows adjacent (ld M), B's with K-blocks adjacent in rows padded to 4 (PyTorch's _scaled_mm checks).
    if (s.a != dtype::fp8 || s.b != dtype::fp8) return "cuBLASLt's block-scaled GEMM takes e4m3 A and B";
    if (p.batch > 1) return "the cuBLASLt baseline maps block-scaled GEMMs of batch 1 only";
    if (p.scales.ld_a != p.m || p.scales.ld_b != p.aligned_scale_ld_b())
      return "cuBLASLt's block scales lie packed: A's ld M, B's ld ceil(K / 128) rounded up to 4";
  }
  return std::nullopt;
}

namespace {
// cuBLASLt's fp8 GEMMs take an fp8 D only beside a 16-bit C: with beta = 0 C is never
// read, so a bf16 description of the same buffer serves (beta != 0 is refused).
bool fp8_output(const gemm_signature& s) { return s.c == dtype::fp8 || s.c == dtype::bf8; }
}  // namespace

cublas_gemm::cublas_gemm(const gemm_problem& problem, float alpha, float beta) : impl_(std::make_unique<impl>()) {
  if (auto why = unsupported(problem)) throw std::runtime_error(*why);
  const gemm_problem p = with_row_major_c(problem);
  const auto& s = p.sig;
  auto& st = *impl_;
  st.swap_ab = problem.sig.lay.c == layout::col;
  st.alpha = alpha;
  st.beta = beta;
  st.ialpha = std::int32_t(alpha);
  st.ibeta = std::int32_t(beta);
  st.integer = s.acc == dtype::int32;
  check(cublasLtCreate(&st.handle), "create");

  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  if (s.compute == dtype::tf32) compute = CUBLAS_COMPUTE_32F_FAST_TF32;
  if (s.acc == dtype::fp64) compute = CUBLAS_COMPUTE_64F;
  if (st.integer) compute = CUBLAS_COMPUTE_32I;
  const cudaDataType_t scale = st.integer ? CUDA_R_32I : s.acc == dtype::fp64 ? CUDA_R_64F : CUDA_R_32F;
  check(cublasLtMatmulDescCreate(&st.op, compute, scale), "matmul desc");

  // cuBLAS's A' is our B, its B' our A (C^T = B^T A^T in column-major terms).
  cublasOperation_t op_a = s.lay.b == layout::col ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t op_b = s.lay.a == layout::row ? CUBLAS_OP_N : CUBLAS_OP_T;
  check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)), "transa");
  check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)), "transb");
  if (s.variant == gemm_variant::block_scaled) {
    // cuBLAS's A is our B (128 x 128 blocks), its B our A (1 x 128 blocks).
    st.block_scaled = true;
    const cublasLtMatmulMatrixScale_t mode_a = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
    const cublasLtMatmulMatrixScale_t mode_b = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &mode_a, sizeof(mode_a)),
          "A scale mode");
    check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mode_b, sizeof(mode_b)),
          "B scale mode");
  }

  // Stored (column-major) shapes: B' is n x k or k x n; A' likewise with m.
  const std::uint64_t rows_bp = op_a == CUBLAS_OP_N ? p.n : p.k, cols_bp = op_a == CUBLAS_OP_N ? p.k : p.n;
  const std::uint64_t rows_ap = op_b == CUBLAS_OP_N ? p.k : p.m, cols_ap = op_b == CUBLAS_OP_N ? p.m : p.k;
  check(cublasLtMatrixLayoutCreate(&st.la, *cuda_type(s.b), rows_bp, cols_bp, p.ldb), "layout B");
  check(cublasLtMatrixLayoutCreate(&st.lb, *cuda_type(s.a), rows_ap, cols_ap, p.lda), "layout A");
  check(cublasLtMatrixLayoutCreate(&st.lc, *cuda_type(s.c), p.n, p.m, p.ldc), "layout C");
  if (fp8_output(s)) {
    if (beta != 0.0f) throw std::runtime_error("cuBLASLt baseline: fp8 output is mapped only for beta = 0");
    check(cublasLtMatrixLayoutCreate(&st.lc16, CUDA_R_16BF, p.n, p.m, p.ldc), "layout C (bf16 beside fp8 D)");
  }
  if (p.batch > 1) {
    std::int32_t count = std::int32_t(p.batch);
    for (auto [l, stride] : {std::pair{st.la, p.stride_b}, {st.lb, p.stride_a}, {st.lc, p.stride_c}, {st.lc16, p.stride_c}}) {
      if (l == nullptr) continue;
      std::int64_t s64 = stride;
      check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)), "batch");
      check(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &s64, sizeof(s64)),
            "batch stride");
    }
  }

  if (cudaMalloc(&st.workspace, workspace_bytes) != cudaSuccess)
    throw std::runtime_error("cuBLASLt baseline: cannot allocate its workspace");
  if (st.block_scaled) {
    // cuBLASLt 13's heuristic refuses block scale modes while the scale pointers are null (an H100 probe of
    // 2026-12-05, docs/perf/h100-2026-12-05-unverified-sets/calls/): aligned stand-ins until run() sets them.
    for (auto attr : {CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER})
      check(cublasLtMatmulDescSetAttribute(st.op, attr, &st.workspace, sizeof(st.workspace)), "scale pointer");
  }
  cublasLtMatmulPreference_t pref = nullptr;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  std::size_t ws = workspace_bytes;
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
        "workspace preference");
  int found = 0;
  auto hs = cublasLtMatmulAlgoGetHeuristic(st.handle, st.op, st.la, st.lb, st.lc16 ? st.lc16 : st.lc, st.lc, pref, 1,
                                           &st.algo, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  check(hs, "heuristic");
  if (found == 0) throw std::runtime_error("cuBLASLt found no algorithm for this problem");
}

cublas_gemm::~cublas_gemm() {
  auto& st = *impl_;
  if (st.workspace) cudaFree(st.workspace);
  if (st.lc) cublasLtMatrixLayoutDestroy(st.lc);
  if (st.lc16) cublasLtMatrixLayoutDestroy(st.lc16);
  if (st.lb) cublasLtMatrixLayoutDestroy(st.lb);
  if (st.la) cublasLtMatrixLayoutDestroy(st.la);
  if (st.op) cublasLtMatmulDescDestroy(st.op);
  if (st.handle) cublasLtDestroy(st.handle);
}

void cublas_gemm::run(const void* a, const void* b, void* c, const float* scale_a, const float* scale_b) const {
  const auto& st = *impl_;
  if (st.swap_ab) std::swap(a, b);
  if (st.block_scaled) {
    if (scale_a == nullptr || scale_b == nullptr) throw std::runtime_error("cuBLASLt block-scaled GEMM without scales");
    // Attributes are host-side state read at launch: set with each rotating operand set.
    check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale_b, sizeof(scale_b)),
          "A scale pointer");
    check(cublasLtMatmulDescSetAttribute(st.op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &scale_a, sizeof(scale_a)),
          "B scale pointer");
  }
  const void* alpha = st.integer ? static_cast<const void*>(&st.ialpha) : &st.alpha;
  const void* beta = st.integer ? static_cast<const void*>(&st.ibeta) : &st.beta;
  check(cublasLtMatmul(st.handle, st.op, alpha, b, st.la, a, st.lb, beta, c, st.lc16 ? st.lc16 : st.lc, c, st.lc,
                       &st.algo.algo,
                       st.workspace, workspace_bytes, nullptr),
        "matmul");
}

}  // namespace kdecl::cli
