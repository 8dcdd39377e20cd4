// Scratch timing of the sm90 tma_wgmma kernels against cuBLAS (not a test).
// CUDA events around batches of launches, warm-up first, median of 7 batches,
// operands rotated over several buffer sets (> 50 MB in total, above L2),
// uniform [-1, 1] inputs. Also prints each kernel's relative error against cuBLAS.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

using namespace kdecl;
namespace sm90 = kdecl::kernels::cuda::sm90;

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { std::printf("cuBLAS %d at %d\n", int(s_), __LINE__); std::exit(1); } } while (0)

constexpr gemm_key make_key(dtype in, gemm_layout lay, int tm, int tn, int wgs, int stages,
                            gemm_variant v = gemm_variant::standard, elementwise ew = elementwise::pass_through,
                            int num_d = 0, epilogue epi = epilogue::direct) {
  gemm_key k{};
  k.sig = {in, in, in, dtype::fp32, in, lay, v, ew, num_d};
  k.algo.tile = {tm, tn, 64};
  k.algo.warps = {4 * wgs, 1, 1};
  k.algo.warp_tile = {16, tn, 16};
  k.algo.pipe = pipeline::tma_wgmma;
  k.algo.stages = stages;
  k.algo.epi = epi;
  k.algo.sched = scheduler::intrawave;
  k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = tristate::yes;
  k.algo.vector_bytes = 16;
  k.algo.cluster_m = k.algo.cluster_n = 1;
  k.algo.arch = arch_id::sm_90;
  return k;
}

__global__ void fill_uniform(__nv_bfloat16* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ (seed * 0x9E3779B9u);
    h ^= h >> 16; h *= 0x7feb352d; h ^= h >> 15; h *= 0x846ca68b; h ^= h >> 16;
    p[i] = __float2bfloat16(float(h) / 4294967295.0f * 2.0f - 1.0f);
  }
}

struct problem_set {
  std::int64_t m, n, k;
  gemm_layout lay;
  int sets;
  std::vector<__nv_bfloat16*> a, b, c, d;
  void* ws = nullptr;
  std::size_t ws_bytes = 0;
  problem_set(std::int64_t m_, std::int64_t n_, std::int64_t k_, gemm_layout l) : m(m_), n(n_), k(k_), lay(l) {
    const double set_bytes = 2.0 * (m * k + k * n + 2 * m * n);
    sets = std::max(2, int(std::ceil(200e6 / set_bytes)));
    sets = std::min(sets, 8);
    for (int s = 0; s < sets; ++s) {
      __nv_bfloat16 *pa, *pb, *pc, *pd;
      CHECK_CUDA(cudaMalloc(&pa, m * k * 2)); CHECK_CUDA(cudaMalloc(&pb, k * n * 2));
      CHECK_CUDA(cudaMalloc(&pc, m * n * 2)); CHECK_CUDA(cudaMalloc(&pd, m * n * 2));
      fill_uniform<<<1024, 256>>>(pa, m * k, 3 * s + 1);
      fill_uniform<<<1024, 256>>>(pb, k * n, 3 * s + 2);
      fill_uniform<<<1024, 256>>>(pd, m * n, 3 * s + 3);
      a.push_back(pa); b.push_back(pb); c.push_back(pc); d.push_back(pd);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  ~problem_set() {
    for (int s = 0; s < sets; ++s) { cudaFree(a[s]); cudaFree(b[s]); cudaFree(c[s]); cudaFree(d[s]); }
    cudaFree(ws);
  }
  gemm_problem problem(const gemm_signature& sig) const {
    gemm_problem p;
    p.sig = sig;
    p.m = m; p.n = n; p.k = k; p.batch = 1;
    p.lda = p.cols_a(); p.ldb = p.cols_b(); p.ldc = p.cols_c(); p.ldd = p.ldc;
    p.stride_a = m * k; p.stride_b = k * n; p.stride_c = m * n; p.stride_d = m * n;
    return p;
  }
};

// Median over batches of the mean time per call, in ms.
template <class F>
double time_ms(F&& launch, int sets) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 10; ++i) launch(i % sets);
  CHECK_CUDA(cudaDeviceSynchronize());
  // Pick a batch size that runs ~ 2 ms.
  cudaEventRecord(e0);
  launch(0);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float one = 0; cudaEventElapsedTime(&one, e0, e1);
  const int batch = std::clamp(int(2.0 / std::max(one, 1e-3f)), 5, 200);
  std::vector<double> t;
  for (int r = 0; r < 7; ++r) {
    cudaEventRecord(e0);
    for (int i = 0; i < batch; ++i) launch(i % sets);
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0; cudaEventElapsedTime(&ms, e0, e1);
    t.push_back(ms / batch);
  }
  std::sort(t.begin(), t.end());
  cudaEventDestroy(e0); cudaEventDestroy(e1);
  return t[t.size() / 2];
}

cublasHandle_t handle;

void cublas_gemm(const problem_set& ps, int s) {
  // Row-major C = A B  <=>  column-major C^T = B^T A^T.
  const float alpha = 1.0f, beta = 0.0f;
  const bool a_row = ps.lay.a == layout::row, b_row = ps.lay.b == layout::row;
  const cublasOperation_t op_b = b_row ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t op_a = a_row ? CUBLAS_OP_N : CUBLAS_OP_T;
  const int ldb = b_row ? ps.n : ps.k, lda = a_row ? ps.k : ps.m;
  CHECK_CUBLAS(cublasGemmEx(handle, op_b, op_a, ps.n, ps.m, ps.k, &alpha, ps.b[s], CUDA_R_16BF, ldb, ps.a[s],
                            CUDA_R_16BF, lda, &beta, ps.c[s], CUDA_R_16BF, ps.n, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
}

double rel_error(const __nv_bfloat16* x, const __nv_bfloat16* ref, std::size_t n) {
  std::vector<__nv_bfloat16> hx(n), hr(n);
  cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hr.data(), ref, n * 2, cudaMemcpyDeviceToHost);
  double e = 0, r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = __bfloat162float(hx[i]), b = __bfloat162float(hr[i]);
    e += (a - b) * (a - b); r += b * b;
  }
  return std::sqrt(e / std::max(r, 1e-30));
}

double cublas_ms(problem_set& ps) { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); }

template <gemm_key K>
double ours_ms(problem_set& ps, const char* name, double ref_ms, bool check = true) {
  gemm_problem p = ps.problem(K.sig);
  const std::size_t ws = sm90::gemm<K>::workspace_bytes(p);
  if (ws > ps.ws_bytes) { cudaFree(ps.ws); CHECK_CUDA(cudaMalloc(&ps.ws, ws)); ps.ws_bytes = ws; }
  auto args_for = [&](int s) {
    gemm_args a;
    a.a = ps.a[s]; a.b = ps.b[s]; a.c = ps.c[s];
    for (auto& d : a.d) d = ps.d[s];  // multi_d keys with several D read the same tensor
    a.workspace = ps.ws; a.workspace_bytes = ps.ws_bytes;
    return a;
  };
  if (auto why = sm90::gemm<K>::why_not(p, args_for(0))) { std::printf("  %-28s not run: %s\n", name, why->c_str()); return 0; }
  double err = -1;
  if (check && K.sig.variant == gemm_variant::standard) {
    cublas_gemm(ps, 1);  // reference into set 1's C, ours into set 0's, same inputs: copy inputs first
    CHECK_CUDA(cudaMemcpy(ps.a[0], ps.a[1], ps.m * ps.k * 2, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpy(ps.b[0], ps.b[1], ps.k * ps.n * 2, cudaMemcpyDeviceToDevice));
    if (!sm90::gemm<K>::run(p, args_for(0), nullptr).is_ok()) { std::printf("run failed\n"); std::exit(1); }
    CHECK_CUDA(cudaDeviceSynchronize());
    err = rel_error(ps.c[0], ps.c[1], ps.m * ps.n);
  }
  const double ms = time_ms([&](int s) { (void)sm90::gemm<K>::run(p, args_for(s), nullptr); }, ps.sets);
  CHECK_CUDA(cudaDeviceSynchronize());
  const double tflops = 2.0 * ps.m * ps.n * ps.k / ms / 1e9;
  std::printf("  %-28s %9.4f ms %7.1f TFLOP/s  %.3fx cuBLAS  relerr %.2e\n", name, ms, tflops, ref_ms / ms, err);
  return ms;
}

constexpr gemm_key big_rcr = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
constexpr gemm_key big_rcr_256x128 = make_key(dtype::bf16, rcr, 256, 128, 2, 4);
constexpr gemm_key big_rcr_128x128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
constexpr gemm_key big_rrr = make_key(dtype::bf16, rrr, 128, 256, 2, 4);
constexpr gemm_key big_crr = make_key(dtype::bf16, crr, 128, 256, 2, 4);
constexpr gemm_key big_ccr = make_key(dtype::bf16, ccr, 128, 256, 2, 4);
constexpr gemm_key big_gelu = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::gelu, 1);
constexpr gemm_key big_md_pass = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::pass_through, 1);
constexpr gemm_key big_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::standard, elementwise::pass_through, 0, epilogue::cshuffle);
constexpr gemm_key big_gelu_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::gelu, 1, epilogue::cshuffle);
constexpr gemm_key big_md_pass_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::pass_through, 1, epilogue::cshuffle);
constexpr gemm_key big_gelu4_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::gelu, 4, epilogue::cshuffle);
constexpr gemm_key big_pass4_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::pass_through, 4, epilogue::cshuffle);
constexpr gemm_key small_64x64_cs = make_key(dtype::bf16, rcr, 64, 64, 1, 12, gemm_variant::standard, elementwise::pass_through, 0, epilogue::cshuffle);
constexpr gemm_key small_64x128 = make_key(dtype::bf16, rcr, 64, 128, 1, 8);
constexpr gemm_key small_64x64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
constexpr gemm_key small_64x256 = make_key(dtype::bf16, rcr, 64, 256, 1, 5);
constexpr gemm_key small_128x128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);

int main(int argc, char** argv) {
  const bool quick = argc > 1;
  CHECK_CUBLAS(cublasCreate(&handle));
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s, %d SMs\n", prop.name, prop.multiProcessorCount);

  for (std::int64_t s : {4096, 8192}) {
    problem_set ps(s, s, s, rcr);
    const double ref = cublas_ms(ps);
    std::printf("bf16 rcr %lld^3: cuBLAS %.4f ms %.1f TFLOP/s\n", (long long)s, ref, 2.0 * s * s * s / ref / 1e9);
    ours_ms<big_rcr>(ps, "128x256 W2 s4", ref);
    ours_ms<big_rcr_256x128>(ps, "256x128 W2 s4", ref);
    ours_ms<big_rcr_128x128>(ps, "128x128 W2 s6", ref);
    const double pass = ours_ms<big_md_pass>(ps, "128x256 multi_d(1) pass", ref, false);
    const double gelu = ours_ms<big_gelu>(ps, "128x256 multi_d(1) gelu", ref, false);
    std::printf("  gelu / multi_d pass_through speed ratio: %.3f\n", pass / gelu);
    ours_ms<big_cs>(ps, "128x256 cshuffle", ref);
    const double pass_cs = ours_ms<big_md_pass_cs>(ps, "128x256 cs multi_d(1) pass", ref, false);
    const double gelu_cs = ours_ms<big_gelu_cs>(ps, "128x256 cs multi_d(1) gelu", ref, false);
    std::printf("  cshuffle gelu / multi_d pass_through speed ratio: %.3f\n", pass_cs / gelu_cs);
    const double pass4 = ours_ms<big_pass4_cs>(ps, "128x256 cs multi_d(4) pass", ref, false);
    const double gelu4 = ours_ms<big_gelu4_cs>(ps, "128x256 cs multi_d(4) gelu", ref, false);
    std::printf("  cshuffle 4-D gelu / pass_through speed ratio: %.3f\n", pass4 / gelu4);
  }
  if (!quick) {
    for (std::int64_t s : {4096, 8192}) {
      for (gemm_layout lay : {rrr, crr, ccr}) {
        problem_set ps(s, s, s, lay);
        const double ref = cublas_ms(ps);
        std::printf("bf16 %c%c%c %lld^3: cuBLAS %.4f ms %.1f TFLOP/s\n", lay.a == layout::row ? 'r' : 'c',
                    lay.b == layout::row ? 'r' : 'c', 'r', (long long)s, ref, 2.0 * s * s * s / ref / 1e9);
        if (lay == rrr) ours_ms<big_rrr>(ps, "128x256 W2 s4", ref);
        if (lay == crr) ours_ms<big_crr>(ps, "128x256 W2 s4", ref);
        if (lay == ccr) ours_ms<big_ccr>(ps, "128x256 W2 s4", ref);
      }
    }
  }
  for (std::int64_t nk : {4096, 8192}) {
    for (std::int64_t m : {16, 64, 128}) {
      problem_set ps(m, nk, nk, rcr);
      const double ref = cublas_ms(ps);
      std::printf("bf16 rcr m=%lld n=k=%lld: cuBLAS %.4f ms %.1f TFLOP/s %.0f GB/s(B)\n", (long long)m, (long long)nk, ref,
                  2.0 * m * nk * nk / ref / 1e9, 2.0 * nk * nk / ref / 1e6);
      ours_ms<small_64x128>(ps, "64x128 W1 s8", ref);
      ours_ms<small_64x64>(ps, "64x64 W1 s12", ref);
      ours_ms<small_64x64_cs>(ps, "64x64 W1 s12 cshuffle", ref);
      ours_ms<small_64x256>(ps, "64x256 W1 s5", ref);
      ours_ms<small_128x128>(ps, "128x128 W2 s6", ref);
    }
  }
  cublasDestroy(handle);
  return 0;
}
