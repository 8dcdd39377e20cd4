// Scratch timing of the sm90 tma_wgmma kernels against cuBLAS (not a test).
// CUDA events around batches of launches, warm-up first, median of 9 batches,
// operands rotated over several buffer sets (>= 200 MB in total, 4x the H100's
// 50 MB L2), uniform [-1, 1] inputs; cuBLAS timed in the same process. Standard
// GEMMs also print their relative error against cuBLAS.
//   sm90_probe          big shapes (4096^3, 8192^3) and the small-M shapes
//   sm90_probe small    small-M shapes only
//   sm90_probe shortk   short-K shapes (K = 768-1024 encoder layers and two long-K
//                       references), seven kernel shapes and cuBLAS timed in turns
//   sm90_probe tail     shapes whose last wave the split tail fills (tail_split.cuh)
//   sm90_probe ncu      three launches each of cuBLAS and three tiles on three small shapes, the
//                       device drained between them: for ncu, which times each kernel alone
//   sm90_probe pdl      programmatic dependent launch off and on in one process (batched and
//                       per-launch event timing), five kernel shapes, cuBLAS in turns
//   sm90_probe splits   few tiles over a long K: five kernel shapes with each K split forced
//                       (run_with_splits) beside their plan and cuBLAS, timed in turns
//   sm90_probe timeline (the kdecl_sm90_timeline build, -DKDECL_SM90_TIMELINE) one launch of four
//                       tiles on four shapes, each block's clock stamps read back: where a block's
//                       time goes (set-up, first data, main loop, split-K reduction, epilogue)
//   sm90_probe ab       a short fixed set, for comparing builds of the kernel; built
//                       with -DKDECL_SM90_BASELINE it times the previous kernel (a
//                       renamed copy of the headers, namespace sm90_base) in turns
//                       with the current one in the same process
//   sm90_probe gemv     decode-sized M (1-16) against large weights: cuBLAS, the two
//                       tma_wgmma tiles the dispatcher picks there and the CUDA-core
//                       probe kernel of probe_gemv.cuh, timed in turns, with the share of
//                       the copy bandwidth each reaches reading A + B and writing C
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"
#include "kdecl/runtime/dependent_launch.hpp"
#include "probe_gemv.cuh"

using namespace kdecl;
namespace sm90 = kdecl::kernels::cuda::sm90;

#define CHECK_CUDA(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { std::printf("CUDA %s at %d\n", cudaGetErrorString(e_), __LINE__); std::exit(1); } } while (0)
#define CHECK_CUBLAS(x) do { cublasStatus_t s_ = (x); if (s_ != CUBLAS_STATUS_SUCCESS) { std::printf("cuBLAS %d at %d\n", int(s_), __LINE__); std::exit(1); } } while (0)

constexpr gemm_key make_key(dtype in, gemm_layout lay, int tm, int tn, int wgs, int stages,
                            epilogue epi = epilogue::cshuffle, gemm_variant v = gemm_variant::standard,
                            elementwise ew = elementwise::pass_through, int num_d = 0) {
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

template <class T> __device__ T from_float_dev(float v);
template <> __device__ __nv_bfloat16 from_float_dev(float v) { return __float2bfloat16(v); }
template <> __device__ __half from_float_dev(float v) { return __float2half(v); }

template <class T>
__global__ void fill_uniform(T* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ (seed * 0x9E3779B9u);
    h ^= h >> 16; h *= 0x7feb352d; h ^= h >> 15; h *= 0x846ca68b; h ^= h >> 16;
    p[i] = from_float_dev<T>(float(h) / 4294967295.0f * 2.0f - 1.0f);
  }
}

// out = gelu(c + d), 8 bf16 per thread: the "separate elementwise kernel" after cuBLAS.
__global__ void add_gelu_bf16(const __nv_bfloat16* c, const __nv_bfloat16* d, __nv_bfloat16* out, std::size_t n8) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n8; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 a = reinterpret_cast<const uint4*>(c)[i], b = reinterpret_cast<const uint4*>(d)[i];
    const __nv_bfloat16* pa = reinterpret_cast<const __nv_bfloat16*>(&a);
    const __nv_bfloat16* pb = reinterpret_cast<const __nv_bfloat16*>(&b);
    uint4 o;
    __nv_bfloat16* po = reinterpret_cast<__nv_bfloat16*>(&o);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float x = __bfloat162float(pa[e]) + __bfloat162float(pb[e]);
      po[e] = __float2bfloat16(0.5f * x * (1.0f + erff(x * 0.70710678118654752f)));
    }
    reinterpret_cast<uint4*>(out)[i] = o;
  }
}

template <class F>
double time_ms(F&& launch, int sets) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  for (int i = 0; i < 10; ++i) launch(i % sets);
  CHECK_CUDA(cudaDeviceSynchronize());
  cudaEventRecord(e0);
  launch(0);
  cudaEventRecord(e1);
  cudaEventSynchronize(e1);
  float one = 0; cudaEventElapsedTime(&one, e0, e1);
  const int batch = std::clamp(int(2.0 / std::max(one, 1e-3f)), 5, 200);
  std::vector<double> t;
  for (int r = 0; r < 9; ++r) {
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

struct problem_set {
  std::int64_t m, n, k;
  gemm_layout lay;
  dtype type;
  int sets;
  std::vector<void*> a, b, c, d, e;  // e: second output (cuBLAS + elementwise)
  problem_set(std::int64_t m_, std::int64_t n_, std::int64_t k_, gemm_layout l, dtype t)
      : m(m_), n(n_), k(k_), lay(l), type(t) {
    const double set_bytes = 2.0 * (m * k + k * n + 3 * m * n);
    sets = std::clamp(int(std::ceil(200e6 / set_bytes)), 2, 8);
    for (int s = 0; s < sets; ++s) {
      void *pa, *pb, *pc, *pd, *pe;
      CHECK_CUDA(cudaMalloc(&pa, m * k * 2)); CHECK_CUDA(cudaMalloc(&pb, k * n * 2));
      CHECK_CUDA(cudaMalloc(&pc, m * n * 2)); CHECK_CUDA(cudaMalloc(&pd, m * n * 2)); CHECK_CUDA(cudaMalloc(&pe, m * n * 2));
      fill(pa, m * k, 3 * s + 1); fill(pb, k * n, 3 * s + 2); fill(pd, m * n, 3 * s + 3);
      a.push_back(pa); b.push_back(pb); c.push_back(pc); d.push_back(pd); e.push_back(pe);
    }
    CHECK_CUDA(cudaDeviceSynchronize());
  }
  void fill(void* p, std::size_t n, unsigned seed) {
    if (type == dtype::bf16) fill_uniform<<<1024, 256>>>(static_cast<__nv_bfloat16*>(p), n, seed);
    else fill_uniform<<<1024, 256>>>(static_cast<__half*>(p), n, seed);
  }
  ~problem_set() {
    for (int s = 0; s < sets; ++s) { cudaFree(a[s]); cudaFree(b[s]); cudaFree(c[s]); cudaFree(d[s]); cudaFree(e[s]); }
  }
  gemm_problem problem(const gemm_signature& sig) const {
    gemm_problem p;
    p.sig = sig;
    p.m = m; p.n = n; p.k = k; p.batch = 1;
    p.lda = p.cols_a(); p.ldb = p.cols_b(); p.ldc = p.cols_c(); p.ldd = p.ldc;
    p.stride_a = m * k; p.stride_b = k * n; p.stride_c = m * n; p.stride_d = m * n;
    return p;
  }
  double gemm_bytes() const { return 2.0 * (m * k + k * n + m * n); }
};

cublasHandle_t handle;

void cublas_gemm(const problem_set& ps, int s) {
  // Row-major C = A B  <=>  column-major C^T = B^T A^T.
  const float alpha = 1.0f, beta = 0.0f;
  const bool a_row = ps.lay.a == layout::row, b_row = ps.lay.b == layout::row;
  const int ldb = b_row ? ps.n : ps.k, lda = a_row ? ps.k : ps.m;
  const cudaDataType t = ps.type == dtype::bf16 ? CUDA_R_16BF : CUDA_R_16F;
  CHECK_CUBLAS(cublasGemmEx(handle, b_row ? CUBLAS_OP_N : CUBLAS_OP_T, a_row ? CUBLAS_OP_N : CUBLAS_OP_T, ps.n, ps.m,
                            ps.k, &alpha, ps.b[s], t, ldb, ps.a[s], t, lda, &beta, ps.c[s], t, ps.n,
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

float host_float(const problem_set& ps, const unsigned short bits) {
  if (ps.type == dtype::bf16) { __nv_bfloat16 v; std::memcpy(&v, &bits, 2); return __bfloat162float(v); }
  __half v; std::memcpy(&v, &bits, 2); return __half2float(v);
}

double rel_error(const problem_set& ps, const void* x, const void* ref) {
  const std::size_t n = ps.m * ps.n;
  std::vector<unsigned short> hx(n), hr(n);
  cudaMemcpy(hx.data(), x, n * 2, cudaMemcpyDeviceToHost);
  cudaMemcpy(hr.data(), ref, n * 2, cudaMemcpyDeviceToHost);
  double e = 0, r = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double a = host_float(ps, hx[i]), b = host_float(ps, hr[i]);
    e += (a - b) * (a - b); r += b * b;
  }
  return std::isnan(e) ? 1e30 : std::sqrt(e / std::max(r, 1e-30));
}

double copy_bw = 0;  // bytes read + written per second, device-to-device copy

// Workspace lent to every launch (the split tail's partial tiles), as the dispatcher lends its own.
void* probe_workspace = nullptr;
constexpr std::size_t probe_workspace_bytes = std::size_t{64} << 20;

template <gemm_key K>
gemm_args args_for(const problem_set& ps, int s) {
  gemm_args a;
  a.a = ps.a[s]; a.b = ps.b[s]; a.c = ps.c[s];
  a.workspace = probe_workspace;
  a.workspace_bytes = probe_workspace_bytes;
  for (auto& d : a.d) d = ps.d[s];  // multi_d keys with several D read the same tensor
  return a;
}

// Times one key; prints ms, TFLOP/s, ratio to cuBLAS, achieved bytes/s (A + B + C) and,
// for standard keys, the error against cuBLAS.
template <gemm_key K>
double ours_ms(problem_set& ps, const char* name, double ref_ms) {
  gemm_problem p = ps.problem(K.sig);
  if (auto why = sm90::gemm<K>::why_not(p, args_for<K>(ps, 0))) { std::printf("  %-30s not run: %s\n", name, why->c_str()); return 0; }
  double err = -1;
  if (K.sig.variant == gemm_variant::standard) {
    cublas_gemm(ps, 1);  // reference in set 1's C; ours on the same inputs into set 0's E
    gemm_args a = args_for<K>(ps, 1);
    a.c = ps.e[0];
    CHECK_CUDA(cudaMemset(ps.e[0], 0xFF, ps.m * ps.n * 2));
    if (!sm90::gemm<K>::run(p, a, nullptr).is_ok()) { std::printf("run failed\n"); std::exit(1); }
    CHECK_CUDA(cudaDeviceSynchronize());
    err = rel_error(ps, ps.e[0], ps.c[1]);
  }
  const double ms = time_ms([&](int s) { (void)sm90::gemm<K>::run(p, args_for<K>(ps, s), nullptr); }, ps.sets);
  CHECK_CUDA(cudaDeviceSynchronize());
  const double tflops = 2.0 * ps.m * ps.n * ps.k / ms / 1e9;
  const double bw = ps.gemm_bytes() / ms / 1e6;  // GB/s
  std::printf("  %-30s splits %d  %8.4f ms %7.1f TFLOP/s %6.0f GB/s (%.0f%% of copy)  %.3fx cuBLAS  relerr %.2e\n", name,
              sm90::gemm<K>::plan(p).sched.splits, ms, tflops, bw, 100.0 * bw * 1e9 / copy_bw, ref_ms / ms, err);
  return ms;
}

void measure_copy_bandwidth() {
  const std::size_t bytes = 512u << 20;
  void *x, *y;
  CHECK_CUDA(cudaMalloc(&x, bytes)); CHECK_CUDA(cudaMalloc(&y, bytes));
  CHECK_CUDA(cudaMemset(x, 1, bytes));
  const double ms = time_ms([&](int) { cudaMemcpyAsync(y, x, bytes, cudaMemcpyDeviceToDevice); }, 1);
  copy_bw = 2.0 * bytes / ms * 1e3;
  std::printf("device-to-device copy of 512 MiB: %.3f ms, %.0f GB/s (read + written)\n", ms, copy_bw / 1e9);
  cudaFree(x); cudaFree(y);
}

// Host cost of one run() call (validation, two tensor-map encodes, launch), enqueue only.
template <gemm_key K>
void host_cost(problem_set& ps) {
  gemm_problem p = ps.problem(K.sig);
  const gemm_args a = args_for<K>(ps, 0);
  for (int i = 0; i < 20; ++i) (void)sm90::gemm<K>::run(p, a, nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  const auto t0 = std::chrono::steady_clock::now();
  constexpr int calls = 200;
  for (int i = 0; i < calls; ++i) (void)sm90::gemm<K>::run(p, a, nullptr);
  const auto t1 = std::chrono::steady_clock::now();
  CHECK_CUDA(cudaDeviceSynchronize());
  CUtensorMap map;
  const auto t2 = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i)
    (void)sm90::encode_tensor_map(map, {ps.b[0], K.sig.b, ps.k, ps.n, 1, ps.k, ps.k * ps.n, 64, K.algo.tile.n});
  const auto t3 = std::chrono::steady_clock::now();
  std::printf("  host: run() %.2f us per call (enqueue), of which one tensor-map encode %.2f us\n",
              std::chrono::duration<double, std::micro>(t1 - t0).count() / calls,
              std::chrono::duration<double, std::micro>(t3 - t2).count() / calls);
}

template <dtype T>
void small_m_shapes() {
  constexpr gemm_key k64x64 = make_key(T, rcr, 64, 64, 1, 12);
  constexpr gemm_key k64x128 = make_key(T, rcr, 64, 128, 1, 8);
  constexpr gemm_key k64x256 = make_key(T, rcr, 64, 256, 1, 5);
  constexpr gemm_key k64x128_direct = make_key(T, rcr, 64, 128, 1, 8, epilogue::direct);
  constexpr gemm_key k128x128 = make_key(T, rcr, 128, 128, 2, 6);
  for (std::int64_t nk : {4096, 8192}) {
    for (std::int64_t m : {16, 64, 128}) {
      problem_set ps(m, nk, nk, rcr, T);
      const double ref = time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets);
      const double bw = ps.gemm_bytes() / ref / 1e6;
      std::printf("%s rcr m=%lld n=k=%lld: cuBLAS %.4f ms %.1f TFLOP/s %.0f GB/s (%.0f%% of copy)\n",
                  T == dtype::bf16 ? "bf16" : "fp16", (long long)m, (long long)nk, ref, 2.0 * m * nk * nk / ref / 1e9,
                  bw, 100.0 * bw * 1e9 / copy_bw);
      double best = 1e30;
      best = std::min(best, ours_ms<k64x64>(ps, "64x64 W1 s12 cs", ref));
      best = std::min(best, ours_ms<k64x128>(ps, "64x128 W1 s8 cs", ref));
      best = std::min(best, ours_ms<k64x256>(ps, "64x256 W1 s5 cs", ref));
      best = std::min(best, ours_ms<k64x128_direct>(ps, "64x128 W1 s8 direct", ref));
      best = std::min(best, ours_ms<k128x128>(ps, "128x128 W2 s6 cs", ref));
      std::printf("  best: %.4f ms, %.3fx cuBLAS, %.0f%% of copy bandwidth\n", best, ref / best,
                  100.0 * ps.gemm_bytes() / best * 1e3 / copy_bw);
      if (m == 16 && nk == 4096) host_cost<k64x128>(ps);
    }
  }
}

void big_shapes() {
  constexpr gemm_key big_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  constexpr gemm_key big_direct = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::direct);
  constexpr gemm_key md_pass = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::pass_through, 1);
  constexpr gemm_key md_gelu = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::gelu, 1);
  constexpr gemm_key md_pass4 = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::pass_through, 4);
  constexpr gemm_key md_gelu4 = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::gelu, 4);
  for (std::int64_t s : {4096, 8192}) {
    problem_set ps(s, s, s, rcr, dtype::bf16);
    const double ref = time_ms([&](int i) { cublas_gemm(ps, i); }, ps.sets);
    std::printf("bf16 rcr %lld^3: cuBLAS %.4f ms %.1f TFLOP/s\n", (long long)s, ref, 2.0 * s * s * s / ref / 1e9);
    const double plain = ours_ms<big_cs>(ps, "128x256 W2 s4 cs", ref);
    ours_ms<big_direct>(ps, "128x256 W2 s4 direct", ref);
    const double pass = ours_ms<md_pass>(ps, "128x256 cs multi_d(1) pass", ref);
    const double gelu = ours_ms<md_gelu>(ps, "128x256 cs multi_d(1) gelu", ref);
    const std::size_t n8 = s * s / 8;
    const double separate = time_ms([&](int i) {
      cublas_gemm(ps, i);
      add_gelu_bf16<<<132 * 8, 256>>>(static_cast<__nv_bfloat16*>(ps.c[i]), static_cast<__nv_bfloat16*>(ps.d[i]),
                                       static_cast<__nv_bfloat16*>(ps.e[i]), n8);
    }, ps.sets);
    std::printf("  gelu / multi_d pass_through speed ratio: %.3f; gelu+D vs standard: %.3f\n", pass / gelu, plain / gelu);
    std::printf("  cuBLAS + separate gelu(C + D) kernel: %.4f ms; fused gelu is %.3fx that speed\n", separate, separate / gelu);
    const double pass4 = ours_ms<md_pass4>(ps, "128x256 cs multi_d(4) pass", ref);
    const double gelu4 = ours_ms<md_gelu4>(ps, "128x256 cs multi_d(4) gelu", ref);
    std::printf("  4-D gelu / pass_through speed ratio: %.3f\n", pass4 / gelu4);
  }
}

// gelu(C + D) by the separate kernel, into `out`: the unfused reference.
void add_gelu(const problem_set& ps, const void* c, const void* d, void* out) {
  add_gelu_bf16<<<132 * 8, 256>>>(static_cast<const __nv_bfloat16*>(c), static_cast<const __nv_bfloat16*>(d),
                                   static_cast<__nv_bfloat16*>(out), std::size_t(ps.m) * ps.n / 8);
}

// Runs a key of family Gemm once on set 1's inputs into set 0's E (poisoned first) and
// returns its error against the unfused cuBLAS (+ gelu(C + D)) result.
template <template <gemm_key> class Gemm, gemm_key K>
double error_vs_cublas(problem_set& ps) {
  gemm_problem p = ps.problem(K.sig);
  cublas_gemm(ps, 1);
  const void* ref = ps.c[1];
  if constexpr (K.sig.variant == gemm_variant::multi_d) {
    static_assert(K.sig.ew == elementwise::gelu && K.sig.num_d == 1, "reference covers gelu(C + D) only");
    add_gelu(ps, ps.c[1], ps.d[1], ps.e[1]);
    ref = ps.e[1];
  }
  gemm_args a = args_for<K>(ps, 1);
  a.c = ps.e[0];
  CHECK_CUDA(cudaMemset(ps.e[0], 0xFF, ps.m * ps.n * 2));
  if (!Gemm<K>::run(p, a, nullptr).is_ok()) { std::printf("run failed\n"); std::exit(1); }
  CHECK_CUDA(cudaDeviceSynchronize());
  return rel_error(ps, ps.e[0], ref);
}

template <template <gemm_key> class Gemm, gemm_key K>
double key_ms(problem_set& ps) {
  gemm_problem p = ps.problem(K.sig);
  const double ms = time_ms([&](int s) { (void)Gemm<K>::run(p, args_for<K>(ps, s), nullptr); }, ps.sets);
  CHECK_CUDA(cudaDeviceSynchronize());
  return ms;
}

#ifdef KDECL_SM90_BASELINE
// The previous kernel, compiled into the same binary: a copy of the sm90 headers with
// the namespace renamed to sm90_base (see the build line in docs/kernels/sm90.md).
#include "kdecl/kernels/gemm/cuda/sm90_base/gemm_sm90.cuh"
template <gemm_key K> using gemm_before = kdecl::kernels::cuda::sm90_base::gemm<K>;
constexpr bool have_before = true;
#else
template <gemm_key K> using gemm_before = sm90::gemm<K>;
constexpr bool have_before = false;
#endif
template <gemm_key K> using gemm_after = sm90::gemm<K>;

// Timers measured round-robin: `rounds` rounds, every other one in reverse order, each
// timer's result the median of its rounds. Clock and temperature drift (several % over
// a few seconds at 8192^3) then falls on all timers alike instead of on the later ones.
std::vector<double> rotate(const std::vector<std::function<double()>>& timers, int rounds = 5) {
  std::vector<std::vector<double>> t(timers.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < timers.size(); ++i) {
      const std::size_t j = r % 2 ? timers.size() - 1 - i : i;
      t[j].push_back(timers[j]());
    }
  std::vector<double> median;
  for (auto& v : t) {
    std::sort(v.begin(), v.end());
    median.push_back(v[v.size() / 2]);
  }
  return median;
}

// One key, before and after: adds both timers; prints the row once `ms` is filled.
template <gemm_key K>
struct ab_key {
  const char* name;
  double err = -1;  // after, against cuBLAS (+ the separate gelu(C + D) kernel) where that covers the key
  std::size_t at = 0;
  void add(problem_set& ps, std::vector<std::function<double()>>& timers) {
    if constexpr (K.sig.variant == gemm_variant::standard || (K.sig.ew == elementwise::gelu && K.sig.num_d == 1))
      err = error_vs_cublas<gemm_after, K>(ps);
    at = timers.size();
    timers.push_back([&ps] { return have_before ? key_ms<gemm_before, K>(ps) : 0.0; });
    timers.push_back([&ps] { return key_ms<gemm_after, K>(ps); });
  }
  double before(const std::vector<double>& ms) const { return ms[at]; }
  double after(const std::vector<double>& ms) const { return ms[at + 1]; }
  void print(const std::vector<double>& ms, double ref_ms) const {
    const double b = before(ms), a = after(ms);
    std::printf("  %-28s before %8.4f ms (%.3fx cuBLAS)  after %8.4f ms (%.3fx cuBLAS)  after/before time %.3f  relerr %.1e\n",
                name, b, ref_ms / b, a, ref_ms / a, a / b, err);
  }
};

// A short fixed set for comparing builds of the kernel against each other (the
// previous one in the same process when built with -DKDECL_SM90_BASELINE).
void ab_shapes() {
  constexpr gemm_key big_cs = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  constexpr gemm_key md_pass = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::pass_through, 1);
  constexpr gemm_key md_gelu = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::gelu, 1);
  constexpr gemm_key md_pass4 = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::pass_through, 4);
  constexpr gemm_key md_gelu4 = make_key(dtype::bf16, rcr, 128, 256, 2, 4, epilogue::cshuffle, gemm_variant::multi_d, elementwise::gelu, 4);
  for (std::int64_t s : {4096, 8192}) {
    problem_set ps(s, s, s, rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    timers.push_back([&] { return time_ms([&](int i) { cublas_gemm(ps, i); }, ps.sets); });
    timers.push_back([&] {
      return time_ms([&](int i) { cublas_gemm(ps, i); add_gelu(ps, ps.c[i], ps.d[i], ps.e[i]); }, ps.sets);
    });
    ab_key<big_cs> std_k{"128x256 W2 s4 cs standard"};
    ab_key<md_pass> pass{"multi_d(1) pass_through"};
    ab_key<md_gelu> gelu{"multi_d(1) gelu"};
    ab_key<md_pass4> pass4{"multi_d(4) pass_through"};
    ab_key<md_gelu4> gelu4{"multi_d(4) gelu"};
    std_k.add(ps, timers); pass.add(ps, timers); gelu.add(ps, timers); pass4.add(ps, timers); gelu4.add(ps, timers);
    const std::vector<double> ms = rotate(timers);
    const double ref = ms[0], separate = ms[1];
    std::printf("bf16 rcr %lld^3: cuBLAS %.4f ms; cuBLAS + separate gelu(C + D) kernel %.4f ms (medians of 5 rotated rounds)\n",
                (long long)s, ref, separate);
    std_k.print(ms, ref); pass.print(ms, ref); gelu.print(ms, ref); pass4.print(ms, ref); gelu4.print(ms, ref);
    for (int after = 0; after < 2; ++after) {
      const auto pick = [&](const auto& k) { return after ? k.after(ms) : k.before(ms); };
      std::printf("  %s pass/gelu %.3f  standard/pass %.3f  separate/gelu %.3f  4-D pass/gelu %.3f\n",
                  after ? "after: " : "before:", pick(pass) / pick(gelu), pick(std_k) / pick(pass),
                  separate / pick(gelu), pick(pass4) / pick(gelu4));
    }
  }
  constexpr gemm_key k64x64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
  constexpr gemm_key k64x128 = make_key(dtype::bf16, rcr, 64, 128, 1, 8);
  for (auto [m, nk] : {std::pair<int, int>{128, 4096}, {64, 8192}, {16, 4096}}) {
    problem_set ps(m, nk, nk, rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    timers.push_back([&] { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    ab_key<k64x64> a{"64x64 W1 s12 cs"};
    ab_key<k64x128> b{"64x128 W1 s8 cs"};
    a.add(ps, timers); b.add(ps, timers);
    const std::vector<double> ms = rotate(timers);
    std::printf("bf16 m=%d n=k=%d: cuBLAS %.4f ms (splits: 64x64 %d, 64x128 %d)\n", m, nk, ms[0],
                sm90::gemm<k64x64>::plan(ps.problem(k64x64.sig)).sched.splits,
                sm90::gemm<k64x128>::plan(ps.problem(k64x128.sig)).sched.splits);
    a.print(ms, ms[0]); b.print(ms, ms[0]);
  }
}

// Short-K shapes (the sweep's worst: encoder layers with K = 768-1024) or, with tail_shapes,
// shapes whose last wave the split tail fills; the leading kernel shapes timed in turns with
// cuBLAS; each row: time, ratio to cuBLAS and error against it.
constexpr gemm_key with_schedule(gemm_key k, scheduler s, int cm = 1, int cn = 1) {
  k.algo.sched = s;
  k.algo.cluster_m = cm;
  k.algo.cluster_n = cn;
  return k;
}

void short_k_shapes(bool tail_shapes) {
  constexpr gemm_key coop256 = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  constexpr gemm_key coop256_2x1 = with_schedule(coop256, scheduler::intrawave, 2, 1);
  constexpr gemm_key coop192 = make_key(dtype::bf16, rcr, 128, 192, 2, 5);
  constexpr gemm_key pp128 = with_schedule(make_key(dtype::bf16, rcr, 128, 128, 1, 6), scheduler::pingpong);
  constexpr gemm_key pp64x256 = with_schedule(make_key(dtype::bf16, rcr, 64, 256, 1, 5), scheduler::pingpong);
  constexpr gemm_key coop256x128 = make_key(dtype::bf16, rcr, 256, 128, 2, 4);
  constexpr gemm_key coop128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
  const std::vector<std::array<std::int64_t, 3>> shapes =
      tail_shapes ? std::vector<std::array<std::int64_t, 3>>{{1024, 4800, 1600}, {1576, 3072, 1024},
                                                             {512, 11008, 4096}, {512, 10240, 8192},
                                                             {2048, 2560, 2048}, {512, 4608, 4096},
                                                             {512, 5120, 2048}, {6304, 768, 3072}}
                      : std::vector<std::array<std::int64_t, 3>>{{16384, 3072, 768}, {8192, 32128, 768},
                                                                 {6304, 768, 768}, {1576, 3072, 1024},
                                                                 {4096, 4096, 4096}, {16384, 3072, 4096}};
  for (const auto& sh : shapes) {
    problem_set ps(sh[0], sh[1], sh[2], rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    timers.push_back([&] { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    ab_key<coop256> a{"coop 128x256 s4"};
    ab_key<coop256_2x1> b{"coop 128x256 s4 2x1"};
    ab_key<coop192> c{"coop 128x192 s5"};
    ab_key<pp128> d{"pingpong 128x128 s6"};
    ab_key<pp64x256> e{"pingpong 64x256 s5"};
    ab_key<coop256x128> f{"coop 256x128 s4"};
    ab_key<coop128> g{"coop 128x128 s6"};
    a.add(ps, timers); b.add(ps, timers); c.add(ps, timers); d.add(ps, timers); e.add(ps, timers);
    f.add(ps, timers); g.add(ps, timers);
    const std::vector<double> ms = rotate(timers);
    const double flop = 2.0 * sh[0] * sh[1] * sh[2];
    const gemm_problem prob = ps.problem(coop256.sig);
    const auto tail = [&](auto plan) { return plan.sched.tail_tiles * 100 + plan.sched.tail_splits; };
    std::printf("bf16 rcr %lldx%lldx%lld: cuBLAS %.4f ms %.0f TFLOP/s (split tail, tiles*100+splits: 128x256 %d, "
                "128x192 %d, 256x128 %d, 128x128 %d)\n",
                (long long)sh[0], (long long)sh[1], (long long)sh[2], ms[0], flop / ms[0] / 1e9,
                tail(sm90::gemm<coop256>::plan(prob)), tail(sm90::gemm<coop192>::plan(prob)),
                tail(sm90::gemm<coop256x128>::plan(prob)), tail(sm90::gemm<coop128>::plan(prob)));
    const auto row = [&](const char* name, double t, double err) {
      std::printf("  %-22s %8.4f ms %5.0f TFLOP/s %.3fx cuBLAS relerr %.1e\n", name, t, flop / t / 1e9, ms[0] / t, err);
    };
    row(a.name, a.after(ms), a.err); row(b.name, b.after(ms), b.err); row(c.name, c.after(ms), c.err);
    row(d.name, d.after(ms), d.err); row(e.name, e.after(ms), e.err); row(f.name, f.after(ms), f.err);
    row(g.name, g.after(ms), g.err);
  }
}

// Few tiles over a long K (the sweep's worst shapes: 197x1024x4096 and the like): five kernel
// shapes, each as plan() launches it and with every K split forced (run_with_splits), cuBLAS,
// and cuBLAS and the planned 128x128 on one operand set (hot in L2), all timed in turns.
// One line per timer: time, ratio to cuBLAS; the planned split count in brackets.
template <gemm_key K>
void add_forced_splits(problem_set& ps, const char* name, std::vector<std::function<double()>>& timers,
                       std::vector<std::string>& names) {
  const gemm_problem p = ps.problem(K.sig);
  const int planned = sm90::gemm<K>::plan(p).sched.splits;
  char label[96];
  std::snprintf(label, sizeof label, "%s planned (%d)", name, planned);
  names.push_back(label);
  timers.push_back([&ps] { return key_ms<gemm_after, K>(ps); });
  for (int splits : {1, 2, 3, 4, 6, 8}) {
    std::snprintf(label, sizeof label, "%s splits %d", name, splits);
    names.push_back(label);
    timers.push_back([&ps, p, splits] {
      const double ms = time_ms([&](int s) {
        if (!sm90::gemm<K>::run_with_splits(p, args_for<K>(ps, s), nullptr, splits).is_ok()) std::exit(3);
      }, ps.sets);
      CHECK_CUDA(cudaDeviceSynchronize());
      return ms;
    });
  }
}
void forced_split_shapes() {
  constexpr gemm_key c128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
  constexpr gemm_key c64x128 = make_key(dtype::bf16, rcr, 64, 128, 1, 8);
  constexpr gemm_key c64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
  constexpr gemm_key c256 = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  constexpr gemm_key c192 = make_key(dtype::bf16, rcr, 128, 192, 2, 5);
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {197, 1024, 4096}, {512, 512, 3584}, {512, 1024, 4096}, {512, 1024, 8192}, {256, 1024, 4096},
      {128, 2048, 3584}, {128, 1600, 6400}, {512, 768, 3072}, {128, 1024, 8192}, {128, 3072, 8192},
      {32, 4096, 4096},  {16, 4096, 3072},  {1024, 1024, 4096}, {512, 3584, 3584}};
  for (const auto& sh : shapes) {
    problem_set ps(sh[0], sh[1], sh[2], rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    std::vector<std::string> names{"cuBLAS", "cuBLAS hot (one set)", "128x128 planned hot (one set)"};
    timers.push_back([&] { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    timers.push_back([&] { return time_ms([&](int) { cublas_gemm(ps, 0); }, 1); });
    timers.push_back([&] {
      const gemm_problem p = ps.problem(c128.sig);
      return time_ms([&](int) { (void)sm90::gemm<c128>::run(p, args_for<c128>(ps, 0), nullptr); }, 1);
    });
    add_forced_splits<c128>(ps, "128x128 s6", timers, names);
    add_forced_splits<c64x128>(ps, "64x128 s8", timers, names);
    add_forced_splits<c64>(ps, "64x64 s12", timers, names);
    add_forced_splits<c256>(ps, "128x256 s4", timers, names);
    add_forced_splits<c192>(ps, "128x192 s5", timers, names);
    const double err = error_vs_cublas<gemm_after, c128>(ps);
    const std::vector<double> ms = rotate(timers, 3);
    std::printf("bf16 rcr %lldx%lldx%lld (A + B + C %.1f MB; 128x128 planned relerr %.1e):\n", (long long)sh[0],
                (long long)sh[1], (long long)sh[2], ps.gemm_bytes() / 1e6, err);
    for (std::size_t i = 0; i < ms.size(); ++i)
      std::printf("  %-34s %8.2f us %.3fx cuBLAS\n", names[i].c_str(), ms[i] * 1e3, ms[0] / ms[i]);
    std::fflush(stdout);
  }
}

// Median of `n` launches each timed by its own pair of events (as `kdecl bench` times), the
// launches queued back to back like time_ms's batches.
template <class F>
double per_launch_ms(F&& launch, int sets) {
  constexpr int n = 41;
  for (int i = 0; i < 10; ++i) launch(i % sets);
  std::vector<cudaEvent_t> ev(2 * n);
  for (auto& e : ev) cudaEventCreate(&e);
  for (int i = 0; i < n; ++i) {
    cudaEventRecord(ev[2 * i]);
    launch(i % sets);
    cudaEventRecord(ev[2 * i + 1]);
  }
  cudaEventSynchronize(ev.back());
  std::vector<double> t;
  for (int i = 0; i < n; ++i) {
    float ms = 0;
    cudaEventElapsedTime(&ms, ev[2 * i], ev[2 * i + 1]);
    t.push_back(ms);
  }
  for (auto& e : ev) cudaEventDestroy(e);
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// Programmatic dependent launch (dependent_launch.cuh) off and on in one process, timed in
// turns both ways: batches of back-to-back launches (time_ms) and one event pair per launch.
template <gemm_key K>
void add_dependent_launch_timers(problem_set& ps, const char* name, std::vector<std::function<double()>>& timers,
                                 std::vector<std::string>& names) {
  for (int per_launch = 0; per_launch < 2; ++per_launch)
    for (int on = 0; on < 2; ++on) {
      names.push_back(std::string(name) + (on ? " PDL on " : " PDL off") + (per_launch ? " per-launch events" : " batched"));
      timers.push_back([&ps, on, per_launch] {
        std::optional<without_dependent_launch> off;
        if (!on) off.emplace();
        const gemm_problem p = ps.problem(K.sig);
        const auto launch = [&](int s) { (void)sm90::gemm<K>::run(p, args_for<K>(ps, s), nullptr); };
        const double ms = per_launch ? per_launch_ms(launch, ps.sets) : time_ms(launch, ps.sets);
        CHECK_CUDA(cudaDeviceSynchronize());
        return ms;
      });
    }
}
void dependent_launch_shapes() {
  constexpr gemm_key c128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
  constexpr gemm_key c64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
  constexpr gemm_key c256 = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  constexpr gemm_key pp64x256 = with_schedule(make_key(dtype::bf16, rcr, 64, 256, 1, 5), scheduler::pingpong);
  constexpr gemm_key pp128 = with_schedule(make_key(dtype::bf16, rcr, 128, 128, 1, 6), scheduler::pingpong);
  const std::vector<std::array<std::int64_t, 3>> shapes = {
      {197, 1024, 4096}, {512, 768, 3072}, {16, 3072, 768}, {128, 2048, 3584}, {1024, 1024, 1024},
      {1576, 3072, 1024}, {6304, 768, 768}, {16384, 3072, 768}, {4096, 4096, 4096}, {2048, 11008, 4096},
      {8192, 8192, 8192}};
  for (const auto& sh : shapes) {
    problem_set ps(sh[0], sh[1], sh[2], rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    std::vector<std::string> names{"cuBLAS batched", "cuBLAS per-launch events"};
    timers.push_back([&] { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    timers.push_back([&] { return per_launch_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    add_dependent_launch_timers<c128>(ps, "coop 128x128 s6", timers, names);
    add_dependent_launch_timers<c64>(ps, "coop 64x64 s12", timers, names);
    add_dependent_launch_timers<c256>(ps, "coop 128x256 s4", timers, names);
    add_dependent_launch_timers<pp64x256>(ps, "pingpong 64x256 s5", timers, names);
    add_dependent_launch_timers<pp128>(ps, "pingpong 128x128 s6", timers, names);
    const std::vector<double> ms = rotate(timers, 5);
    std::printf("bf16 rcr %lldx%lldx%lld:\n", (long long)sh[0], (long long)sh[1], (long long)sh[2]);
    for (std::size_t i = 0; i < ms.size(); ++i) {
      const double ref = names[i].find("per-launch") != std::string::npos ? ms[1] : ms[0];
      std::printf("  %-52s %9.2f us %.3fx cuBLAS (same timing)\n", names[i].c_str(), ms[i] * 1e3, ref / ms[i]);
    }
    std::fflush(stdout);
  }
}

// A few launches each, the device drained between them: for a profiler (ncu --clock-control none
// ... sm90_probe ncu), which times each kernel alone. Where its duration falls short of the event
// times above, the rest is the launch and the gap between kernels, not the kernel.
void profiler_launches() {
  constexpr gemm_key c128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
  constexpr gemm_key c64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
  constexpr gemm_key c256 = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  for (const auto& sh : std::vector<std::array<std::int64_t, 3>>{{197, 1024, 4096}, {1024, 1024, 1024}, {16, 3072, 768}}) {
    problem_set ps(sh[0], sh[1], sh[2], rcr, dtype::bf16);
    const auto each = [&](auto&& launch) {
      for (int i = 0; i < 3; ++i) {
        launch(i % ps.sets);
        CHECK_CUDA(cudaDeviceSynchronize());
      }
    };
    each([&](int s) { cublas_gemm(ps, s); });
    each([&](int s) { (void)sm90::gemm<c128>::run(ps.problem(c128.sig), args_for<c128>(ps, s), nullptr); });
    each([&](int s) { (void)sm90::gemm<c64>::run(ps.problem(c64.sig), args_for<c64>(ps, s), nullptr); });
    each([&](int s) { (void)sm90::gemm<c256>::run(ps.problem(c256.sig), args_for<c256>(ps, s), nullptr); });
    std::printf("bf16 rcr %lldx%lldx%lld: cuBLAS, 128x128, 64x64, 128x256 (planned), 3 launches each\n",
                (long long)sh[0], (long long)sh[1], (long long)sh[2]);
  }
}

#ifdef KDECL_SM90_TIMELINE
// One launch of key K, its blocks' clock stamps read back (kernels/gemm/cuda/sm90/timeline.cuh):
// per interval the median and the largest over blocks, in microseconds at the SM clock.
template <gemm_key K>
void timeline_of(problem_set& ps, const char* name, double clock_ghz) {
  for (int i = 0; i < 5; ++i) (void)sm90::gemm<K>::run(ps.problem(K.sig), args_for<K>(ps, i % ps.sets), nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  using marks_t = unsigned long long[sm90::timeline_max_blocks][sm90::tl_marks];
  std::vector<unsigned long long> zero(sm90::timeline_max_blocks * sm90::tl_marks, 0);
  CHECK_CUDA(cudaMemcpyToSymbol(sm90::kdecl_sm90_timeline, zero.data(), zero.size() * 8));
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0); cudaEventCreate(&e1);
  cudaEventRecord(e0);
  (void)sm90::gemm<K>::run(ps.problem(K.sig), args_for<K>(ps, 0), nullptr);
  cudaEventRecord(e1);
  CHECK_CUDA(cudaDeviceSynchronize());
  float ms = 0;
  cudaEventElapsedTime(&ms, e0, e1);
  std::vector<unsigned long long> t(zero.size());
  CHECK_CUDA(cudaMemcpyFromSymbol(t.data(), sm90::kdecl_sm90_timeline, t.size() * 8));
  static_assert(sizeof(marks_t) == sm90::timeline_max_blocks * sm90::tl_marks * 8);
  const auto at = [&](int b, int m) { return t[std::size_t(b) * sm90::tl_marks + m]; };
  int blocks = 0;
  while (blocks < sm90::timeline_max_blocks && at(blocks, sm90::tl_entry) != 0) ++blocks;
  std::printf("%s %lldx%lldx%lld: %d blocks, event %.2f us\n", name, (long long)ps.m, (long long)ps.n, (long long)ps.k,
              blocks, ms * 1e3);
  unsigned long long g0 = ~0ull, g1 = 0;
  for (int b = 0; b < blocks; ++b) { g0 = std::min(g0, at(b, sm90::tl_globaltimer)); g1 = std::max(g1, at(b, sm90::tl_globaltimer)); }
  std::printf("  block starts spread over %.2f us (globaltimer)\n", (g1 - g0) * 1e-3);
  const std::pair<int, int> spans[] = {{sm90::tl_entry, sm90::tl_ready}, {sm90::tl_ready, sm90::tl_first_data},
                                       {sm90::tl_first_data, sm90::tl_mainloop_done}, {sm90::tl_mainloop_done, sm90::tl_partial_shared},
                                       {sm90::tl_partial_shared, sm90::tl_reduced}, {sm90::tl_mainloop_done, sm90::tl_tile_done},
                                       {sm90::tl_tile_done, sm90::tl_exit}, {sm90::tl_entry, sm90::tl_exit},
                                       {sm90::tl_entry, sm90::tl_producer_first}, {sm90::tl_entry, sm90::tl_producer_done}};
  const char* names[] = {"entry -> ready", "ready -> first data", "first data -> mainloop done", "mainloop -> partial shared",
                         "partial shared -> reduced", "mainloop -> tile done", "tile done -> exit", "entry -> exit",
                         "entry -> producer first issue", "entry -> producer done"};
  for (int s = 0; s < int(std::size(spans)); ++s) {
    std::vector<double> us;
    for (int b = 0; b < blocks; ++b) {
      const auto x = at(b, spans[s].first), y = at(b, spans[s].second);
      if (x != 0 && y != 0 && y >= x) us.push_back((y - x) / clock_ghz * 1e-3);
    }
    if (us.empty()) continue;
    std::sort(us.begin(), us.end());
    std::printf("  %-32s median %7.2f us  max %7.2f us  (%zu blocks)\n", names[s], us[us.size() / 2], us.back(), us.size());
  }
  cudaEventDestroy(e0); cudaEventDestroy(e1);
}

void timeline_shapes(double clock_ghz) {
  constexpr gemm_key c128 = make_key(dtype::bf16, rcr, 128, 128, 2, 6);
  constexpr gemm_key c64 = make_key(dtype::bf16, rcr, 64, 64, 1, 12);
  constexpr gemm_key c64x128 = make_key(dtype::bf16, rcr, 64, 128, 1, 8);
  constexpr gemm_key c256 = make_key(dtype::bf16, rcr, 128, 256, 2, 4);
  for (const auto& sh : std::vector<std::array<std::int64_t, 3>>{
           {197, 1024, 4096}, {1024, 1024, 1024}, {16, 3072, 768}, {4096, 4096, 4096}}) {
    problem_set ps(sh[0], sh[1], sh[2], rcr, dtype::bf16);
    timeline_of<c128>(ps, "128x128 s6", clock_ghz);
    timeline_of<c64>(ps, "64x64 s12", clock_ghz);
    timeline_of<c64x128>(ps, "64x128 s8", clock_ghz);
    timeline_of<c256>(ps, "128x256 s4", clock_ghz);
    std::fflush(stdout);
  }
}
#endif

// One variant of the probe GEMV (M rows, R columns per warp step, U chunks in flight): adds
// its timer and returns its name and error against cuBLAS.
template <int M, int R, int U>
void add_gemv(problem_set& ps, std::vector<std::function<double()>>& timers, std::vector<std::string>& names,
              std::vector<double>& errors, int sm_count) {
  using T = __nv_bfloat16;
  const kdecl_probe::gemv_launch l = kdecl_probe::plan_gemv<T, M, R, U>(int(ps.n), sm_count);
  cublas_gemm(ps, 1);
  CHECK_CUDA(cudaMemset(ps.e[0], 0xFF, ps.m * ps.n * 2));
  kdecl_probe::run_gemv<T, M, R, U>(ps.a[1], ps.b[1], ps.e[0], int(ps.n), int(ps.k), l, nullptr);
  CHECK_CUDA(cudaDeviceSynchronize());
  errors.push_back(rel_error(ps, ps.e[0], ps.c[1]));
  char name[96];
  std::snprintf(name, sizeof name, "gemv R%d U%d (%d blocks, %d cols/warp)", R, U, l.blocks, l.cols_per_warp);
  names.push_back(name);
  timers.push_back([&ps, l] {
    return time_ms([&](int s) { kdecl_probe::run_gemv<T, M, R, U>(ps.a[s], ps.b[s], ps.c[s], int(ps.n), int(ps.k), l, nullptr); },
                   ps.sets);
  });
}

template <int M>
void gemv_rows(int sm_count) {
  constexpr gemm_key k64x128 = make_key(dtype::bf16, rcr, 64, 128, 1, 8);
  constexpr gemm_key k64x192 = make_key(dtype::bf16, rcr, 64, 192, 1, 6);
  for (auto [n, k] : {std::pair<int, int>{8192, 8192}, {14336, 4096}, {4096, 14336}, {11008, 4096}, {2048, 16384},
                      {28672, 8192}}) {
    problem_set ps(M, n, k, rcr, dtype::bf16);
    std::vector<std::function<double()>> timers;
    std::vector<std::string> names{"cuBLAS", "tma_wgmma 64x128 s8", "tma_wgmma 64x192 s6"};
    std::vector<double> errors{0.0, error_vs_cublas<gemm_after, k64x128>(ps), error_vs_cublas<gemm_after, k64x192>(ps)};
    timers.push_back([&] { return time_ms([&](int s) { cublas_gemm(ps, s); }, ps.sets); });
    timers.push_back([&] { return key_ms<gemm_after, k64x128>(ps); });
    timers.push_back([&] { return key_ms<gemm_after, k64x192>(ps); });
    add_gemv<M, 1, 8>(ps, timers, names, errors, sm_count);
    add_gemv<M, 2, 4>(ps, timers, names, errors, sm_count);
    add_gemv<M, 4, 2>(ps, timers, names, errors, sm_count);
    const std::vector<double> ms = rotate(timers);
    std::printf("bf16 rcr %dx%dx%d (A + B + C %.1f MB):\n", M, n, k, ps.gemm_bytes() / 1e6);
    for (std::size_t i = 0; i < ms.size(); ++i)
      std::printf("  %-44s %8.2f us %6.0f GB/s (%3.0f%% of copy) %.3fx cuBLAS relerr %.1e\n", names[i].c_str(),
                  ms[i] * 1e3, ps.gemm_bytes() / ms[i] / 1e6, 100.0 * ps.gemm_bytes() / ms[i] * 1e3 / copy_bw,
                  ms[0] / ms[i], errors[i]);
  }
}

int main(int argc, char** argv) {
  const bool small_only = argc > 1 && std::strcmp(argv[1], "small") == 0;
  CHECK_CUBLAS(cublasCreate(&handle));
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("device: %s, %d SMs, L2 %d MB\n", prop.name, prop.multiProcessorCount, prop.l2CacheSize >> 20);
  measure_copy_bandwidth();
  CHECK_CUDA(cudaMalloc(&probe_workspace, probe_workspace_bytes));
  if (argc > 1 && (std::strcmp(argv[1], "shortk") == 0 || std::strcmp(argv[1], "tail") == 0)) {
    short_k_shapes(std::strcmp(argv[1], "tail") == 0);
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "gemv") == 0) {
    gemv_rows<1>(prop.multiProcessorCount);
    gemv_rows<4>(prop.multiProcessorCount);
    gemv_rows<16>(prop.multiProcessorCount);
    return 0;
  }
#ifdef KDECL_SM90_TIMELINE
  if (argc > 1 && std::strcmp(argv[1], "timeline") == 0) {
    // The SM clock the stamps count (clocks are left alone: the driver's boost clock, in kHz).
    int khz = 0;
    cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0);
    std::printf("SM clock for the conversion: %.3f GHz (the device's maximum; stamps are cycles)\n", khz * 1e-6);
    timeline_shapes(khz * 1e-6);
    return 0;
  }
#endif
  if (argc > 1 && std::strcmp(argv[1], "ncu") == 0) {
    profiler_launches();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "pdl") == 0) {
    dependent_launch_shapes();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "splits") == 0) {
    forced_split_shapes();
    return 0;
  }
  if (argc > 1 && std::strcmp(argv[1], "ab") == 0) {
    ab_shapes();
    return 0;
  }
  small_m_shapes<dtype::bf16>();
  small_m_shapes<dtype::fp16>();
  if (!small_only) big_shapes();
  cublasDestroy(handle);
  return 0;
}
