// The sm_90a tma_wgmma GEMM on 8-bit floats (e4m3/e5m2, any mix), int8 and tf32
// (kdecl::kernels::cuda::sm90::gemm<K>, the keys of instances/*gemm_sm90_tma_lowp.cpp)
// against a double-precision host reference, on odd sizes, padded leading
// dimensions and batches, every output poisoned first (0xFF bytes: NaN for the
// floating-point C types, -1 for int32) and NaN never passing.
//
// Tolerances, per element, against the exact products of the stored inputs
// (S = |alpha| sum_k |a b| + |beta c_old|, r = the reference value):
//   int8 -> int32 / int8   exact for alpha = 1, beta = 0 (|acc| < 2^24 here, so the fp32 epilogue
//                          is exact); else 0.5 + 2^-23 S (fp32 epilogue, round-half-even store;
//                          int8 C saturates, and so does the reference)
//   fp8/bf8, fp32 accum    2^-8 S   (Hopper's fp8 wgmma adds with fewer than fp32's bits)
//   tf32 (fp32 data)       2^-8 S   (inputs lose 13 mantissa bits: 2^-10 relative each)
//   plus C's rounding      bf16 2^-8 |r|, fp16 2^-11 |r| + 2^-24, fp8 e4m3 2^-4 |r| + 2^-10
//
// DISABLED_Timing.*: the same kernels against cuBLASLt (fp8 e4m3 TN, int8 TN with
// int32 compute, fp32 with CUBLAS_COMPUTE_32F_FAST_TF32) in the same process, run
// with --gtest_also_run_disabled_tests; it prints and asserts nothing about speed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include "cublas_gemm.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace {

using namespace kdecl;
namespace sm90 = kdecl::kernels::cuda::sm90;

// ---------------------------------------------------------------- keys under test

// A, B, C dtypes; tile_k fills one 128-byte row, warp_tile k is the instruction's K.
constexpr gemm_key make_key(dtype a, dtype b, dtype c, int tm, int tn, int consumer_wgs, int stages,
                            epilogue epi = epilogue::cshuffle) {
  gemm_key k{};
  const bool int8 = a == dtype::int8;
  const bool tf32 = a == dtype::fp32;
  k.sig = {a, b, c, int8 ? dtype::int32 : dtype::fp32, tf32 ? dtype::tf32 : a, rcr,
           gemm_variant::standard, elementwise::pass_through, 0};
  const int elem = tf32 ? 4 : 1;
  k.algo.tile = {tm, tn, 128 / elem};
  k.algo.warps = {4 * consumer_wgs, 1, 1};
  k.algo.warp_tile = {16, tn, 32 / elem};
  k.algo.pipe = pipeline::tma_wgmma;
  k.algo.stages = stages;
  k.algo.epi = epi;
  k.algo.sched = scheduler::intrawave;
  k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = tristate::yes;
  k.algo.vector_bytes = 16;
  k.algo.cluster_m = k.algo.cluster_n = 1;
  k.algo.index_bits = 32;
  k.algo.arch = arch_id::sm_90;
  return k;
}

constexpr dtype e4m3 = dtype::fp8, e5m2 = dtype::bf8;
constexpr gemm_key fp8_large = make_key(e4m3, e4m3, dtype::bf16, 128, 256, 2, 4);
constexpr gemm_key fp8_medium = make_key(e4m3, e4m3, dtype::bf16, 128, 128, 2, 6);
constexpr gemm_key fp8_small_m = make_key(e4m3, e4m3, dtype::bf16, 64, 128, 1, 8);
constexpr gemm_key fp8_tiny_m = make_key(e4m3, e4m3, dtype::bf16, 64, 64, 1, 12);
constexpr gemm_key fp8_fp16_out = make_key(e4m3, e4m3, dtype::fp16, 128, 256, 2, 4);
constexpr gemm_key fp8_fp32_out = make_key(e4m3, e4m3, dtype::fp32, 128, 256, 2, 4);
constexpr gemm_key fp8_fp8_out = make_key(e4m3, e4m3, dtype::fp8, 128, 256, 2, 4);
constexpr gemm_key fp8_direct = make_key(e4m3, e4m3, dtype::bf16, 128, 128, 2, 6, epilogue::direct);
constexpr gemm_key e4m3_e5m2 = make_key(e4m3, e5m2, dtype::bf16, 128, 256, 2, 4);
constexpr gemm_key e5m2_e4m3 = make_key(e5m2, e4m3, dtype::bf16, 128, 256, 2, 4);
constexpr gemm_key e5m2_e5m2 = make_key(e5m2, e5m2, dtype::bf16, 128, 256, 2, 4);
constexpr gemm_key int8_large = make_key(dtype::int8, dtype::int8, dtype::int32, 128, 256, 2, 4);
constexpr gemm_key int8_medium = make_key(dtype::int8, dtype::int8, dtype::int32, 128, 128, 2, 6);
constexpr gemm_key int8_small_m = make_key(dtype::int8, dtype::int8, dtype::int32, 64, 128, 1, 8);
constexpr gemm_key int8_int8_out = make_key(dtype::int8, dtype::int8, dtype::int8, 128, 256, 2, 4);
constexpr gemm_key tf32_large = make_key(dtype::fp32, dtype::fp32, dtype::fp32, 128, 256, 2, 4);
constexpr gemm_key tf32_medium = make_key(dtype::fp32, dtype::fp32, dtype::fp32, 128, 128, 2, 6);
constexpr gemm_key tf32_small_m = make_key(dtype::fp32, dtype::fp32, dtype::fp32, 64, 128, 1, 8);

// ---------------------------------------------------------------- host helpers

// Host storage of a dtype in this test (tf32 data is fp32).
template <dtype D> struct host_type { using type = kernels::cuda::storage_t<D>; };
template <dtype D> using host_t = typename host_type<D>::type;

template <class T> double to_d(T v) { return double(float(v)); }
template <> double to_d(__half v) { return __half2float(v); }
template <> double to_d(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> double to_d(std::int32_t v) { return double(v); }
template <> double to_d(std::int8_t v) { return double(v); }

std::int64_t round_up(std::int64_t v, std::int64_t m) { return (v + m - 1) / m * m; }

bool have_sm90() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) return false;
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  return prop.major == 9 && prop.minor == 0;
}

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit device_buffer(std::size_t n) : count(n) {
    EXPECT_EQ(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T)), cudaSuccess);
  }
  ~device_buffer() { cudaFree(ptr); }
  void upload(const std::vector<T>& h) {
    ASSERT_EQ(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
  }
  std::vector<T> download() const {
    std::vector<T> h(count);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

// Random inputs: 8-bit floats from uniform [-1, 1] (rounded to the type), int8 over
// [-128, 127], fp32 full-precision uniform [-1, 1] (so tf32's truncation shows).
template <class T>
std::vector<T> random_inputs(std::size_t n, std::mt19937& rng) {
  std::vector<T> v(n);
  if constexpr (std::is_same_v<T, std::int8_t>) {
    std::uniform_int_distribution<int> d(-128, 127);
    for (auto& x : v) x = static_cast<std::int8_t>(d(rng));
  } else {
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (auto& x : v) x = T(d(rng));
  }
  return v;
}

template <class T>
T output_value(double v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float(v));
  else if constexpr (std::is_same_v<T, std::int32_t>) return static_cast<std::int32_t>(v);
  else return T(float(v));
}

// Allowed |out - ref| for one element (see the file comment).
template <gemm_key K>
double tolerance(double ref, double abs_sum, float alpha, float beta) {
  using out_t = host_t<K.sig.c>;
  double t = 0;
  if constexpr (K.sig.a == dtype::int8) {
    // Exact for alpha = 1, beta = 0; otherwise the fp32 epilogue rounds alpha*acc + beta*C_old
    // and the int32 store rounds half-way values to even.
    return alpha == 1.0f && beta == 0.0f ? 0.0 : 0.5 + std::ldexp(abs_sum, -23);
  }
  t = std::ldexp(abs_sum, -8);
  if constexpr (std::is_same_v<out_t, __nv_bfloat16>) t += std::ldexp(std::fabs(ref), -8);
  if constexpr (std::is_same_v<out_t, __half>) t += std::ldexp(std::fabs(ref), -11) + std::ldexp(1.0, -24);
  if constexpr (std::is_same_v<out_t, __nv_fp8_e4m3>) t += std::ldexp(std::fabs(ref), -4) + std::ldexp(1.0, -10);
  return t;
}

struct shape {
  std::int64_t m, n, k, batch = 1;
};

// Runs one problem through sm90::gemm<K> and compares each element with the host reference.
template <gemm_key K>
void check_problem(shape s, float alpha, float beta, unsigned seed) {
  using a_t = host_t<K.sig.a>;
  using b_t = host_t<K.sig.b>;
  using out_t = host_t<K.sig.c>;
  SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k << " batch=" << s.batch
                                  << " alpha=" << alpha << " beta=" << beta);
  gemm_problem p;
  p.sig = K.sig;
  p.m = s.m; p.n = s.n; p.k = s.k; p.batch = s.batch;
  const std::int64_t align_a = 16 / sizeof(a_t), align_b = 16 / sizeof(b_t);
  // Leading dimensions padded past the 16-byte minimum; C's by an odd count of elements.
  p.lda = round_up(p.k, align_a) + align_a;
  p.ldb = round_up(p.k, align_b);
  p.ldc = p.n + 3;
  p.stride_a = p.lda * p.m + align_a;
  p.stride_b = p.ldb * p.n;
  p.stride_c = p.ldc * p.m + 5;

  std::mt19937 rng(seed);
  const auto ha = random_inputs<a_t>(p.stride_a * s.batch, rng);
  const auto hb = random_inputs<b_t>(p.stride_b * s.batch, rng);
  std::vector<out_t> hc(p.stride_c * s.batch);
  std::memset(hc.data(), 0xFF, hc.size() * sizeof(out_t));
  if (beta != 0.0f) {
    std::uniform_real_distribution<float> d(-4.0f, 4.0f);
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j)
          hc[b * p.stride_c + i * p.ldc + j] = output_value<out_t>(std::round(d(rng) * 4) / 4);
  }

  device_buffer<a_t> da(ha.size());
  device_buffer<b_t> db(hb.size());
  device_buffer<out_t> dc(hc.size());
  da.upload(ha); db.upload(hb); dc.upload(hc);
  gemm_args args;
  args.a = da.ptr; args.b = db.ptr; args.c = dc.ptr; args.alpha = alpha; args.beta = beta;

  const auto why = sm90::gemm<K>::why_not(p, args);
  ASSERT_FALSE(why.has_value()) << *why;
  const status st = sm90::gemm<K>::run(p, args, nullptr);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto out = dc.download();

  // Inputs as doubles once (host fp8 conversions are slow), then the reference.
  std::vector<double> ad(ha.size()), bd(hb.size());
  for (std::size_t i = 0; i < ha.size(); ++i) ad[i] = to_d(ha[i]);
  for (std::size_t i = 0; i < hb.size(); ++i) bd[i] = to_d(hb[i]);
  std::vector<double> ref(s.batch * s.m * s.n), bound(s.batch * s.m * s.n);
  const unsigned workers = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      for (std::int64_t bi = t; bi < s.batch * s.m; bi += workers) {
        const std::int64_t b = bi / s.m, i = bi % s.m;
        const double* arow = &ad[b * p.stride_a + i * p.lda];
        for (std::int64_t j = 0; j < s.n; ++j) {
          const double* bcol = &bd[b * p.stride_b + j * p.ldb];
          double acc = 0, mag = 0;
          for (std::int64_t kk = 0; kk < s.k; ++kk) {
            const double prod = arow[kk] * bcol[kk];
            acc += prod;
            mag += std::fabs(prod);
          }
          double v = alpha * acc;
          mag *= std::fabs(alpha);
          if (beta != 0.0f) {
            const double old = to_d(hc[b * p.stride_c + i * p.ldc + j]);
            v += beta * old;
            mag += std::fabs(beta * old);
          }
          if constexpr (std::is_same_v<out_t, std::int8_t>) v = std::clamp(v, -128.0, 127.0);  // saturating store
          ref[(b * s.m + i) * s.n + j] = v;
          bound[(b * s.m + i) * s.n + j] = tolerance<K>(v, mag, alpha, beta);
        }
      }
    });
  for (auto& th : pool) th.join();

  std::int64_t bad = 0, bad_padding = 0;
  double worst = 0;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t i = 0; i < s.m; ++i) {
      for (std::int64_t j = 0; j < s.n; ++j) {
        const double o = to_d(out[b * p.stride_c + i * p.ldc + j]);
        const double r = ref[(b * s.m + i) * s.n + j];
        const double err = std::fabs(o - r);
        if (!(err <= bound[(b * s.m + i) * s.n + j])) {  // NaN fails here
          if (bad < 5)
            ADD_FAILURE() << "C(" << b << "," << i << "," << j << ") = " << o << ", reference " << r
                          << ", allowed error " << bound[(b * s.m + i) * s.n + j];
          ++bad;
        }
        if (std::isfinite(err)) worst = std::max(worst, err);
      }
      for (std::int64_t j = s.n; j < p.ldc; ++j) {  // must not be written
        out_t poison;
        std::memset(&poison, 0xFF, sizeof poison);
        if (std::memcmp(&out[b * p.stride_c + i * p.ldc + j], &poison, sizeof poison) != 0) ++bad_padding;
      }
    }
  EXPECT_EQ(bad, 0) << "elements outside their tolerance (largest error " << worst << ")";
  EXPECT_EQ(bad_padding, 0) << "writes past column n";
}

const std::vector<shape> edge_shapes = {{1, 1, 1},       {7, 7, 7},        {63, 63, 63},   {129, 129, 129},
                                        {1000, 7, 63},   {7, 1000, 129},   {63, 129, 1000}, {4097, 63, 7},
                                        {1, 4097, 129},  {129, 1, 1000},   {129, 63, 1000, 3},
                                        {257, 391, 777}};

template <gemm_key K>
void run_edge_shapes() {
  unsigned seed = 1;
  for (const shape& s : edge_shapes) {
    check_problem<K>(s, 1.0f, 0.0f, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  check_problem<K>({129, 200, 300, 2}, 0.5f, -1.5f, seed++);   // alpha (a folded scale), beta, batched
  check_problem<K>({1000, 1000, 1000}, 1.0f, 1.0f, seed++);    // many tiles per block
  check_problem<K>({64, 1000, 4000}, 1.0f, 0.0f, seed++);      // few tiles: split-K (cluster)
}

#define KDECL_SM90_REQUIRE_DEVICE() \
  if (!have_sm90()) GTEST_SKIP() << "no sm_90 CUDA device"

TEST(GemmSm90Lowp, Fp8Tile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_large>(); }
TEST(GemmSm90Lowp, Fp8Tile128x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_medium>(); }
TEST(GemmSm90Lowp, Fp8Tile64x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_small_m>(); }
TEST(GemmSm90Lowp, Fp8Tile64x64) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_tiny_m>(); }
TEST(GemmSm90Lowp, Fp8Fp16Out) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_fp16_out>(); }
TEST(GemmSm90Lowp, Fp8Fp32Out) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_fp32_out>(); }
TEST(GemmSm90Lowp, Fp8Fp8OutScaled) {
  KDECL_SM90_REQUIRE_DEVICE();
  // fp8 output: alpha = scale_a * scale_b / scale_c keeps the values inside e4m3's range.
  check_problem<fp8_fp8_out>({257, 391, 777}, 0.125f, 0.0f, 11);
  check_problem<fp8_fp8_out>({1000, 1000, 1000}, 0.0625f, 0.5f, 12);
  check_problem<fp8_fp8_out>({64, 1000, 4000}, 0.03125f, 0.0f, 13);
}
TEST(GemmSm90Lowp, Fp8DirectEpilogue) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp8_direct>(); }
TEST(GemmSm90Lowp, E4m3xE5m2) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<e4m3_e5m2>(); }
TEST(GemmSm90Lowp, E5m2xE4m3) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<e5m2_e4m3>(); }
TEST(GemmSm90Lowp, E5m2xE5m2) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<e5m2_e5m2>(); }
TEST(GemmSm90Lowp, Int8Tile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<int8_large>(); }
TEST(GemmSm90Lowp, Int8Tile128x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<int8_medium>(); }
TEST(GemmSm90Lowp, Int8Tile64x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<int8_small_m>(); }
TEST(GemmSm90Lowp, Int8Int8OutScaled) {
  KDECL_SM90_REQUIRE_DEVICE();
  // int8 output: alpha requantizes (a few values saturate at -128 / 127), beta adds C_old.
  check_problem<int8_int8_out>({257, 391, 777}, 1.0f / 2048, 0.0f, 21);
  check_problem<int8_int8_out>({1000, 1000, 1000, 1}, 1.0f / 4096, 1.0f, 22);
  check_problem<int8_int8_out>({64, 1000, 4000}, 1.0f / 8192, 0.0f, 23);
}
TEST(GemmSm90Lowp, Tf32Tile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<tf32_large>(); }
TEST(GemmSm90Lowp, Tf32Tile128x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<tf32_medium>(); }
TEST(GemmSm90Lowp, Tf32Tile64x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<tf32_small_m>(); }

TEST(GemmSm90Lowp, NonRcrLayoutsAreRefused) {
  gemm_key k = fp8_large;
  k.sig.lay = rrr;
  const char* why = sm90::key_unsupported_reason(k);
  ASSERT_NE(why, nullptr);
  EXPECT_NE(std::string(why).find("K-major"), std::string::npos) << why;
  k = tf32_large;
  k.algo.tile.k = 64;
  EXPECT_NE(sm90::key_unsupported_reason(k), nullptr);
}

// ---------------------------------------------------------------- timing against cuBLASLt

// Median-free simple timing: warm-up, then the mean over `iters` launches (ms).
template <class F>
double time_ms(F&& launch, int iters) {
  for (int i = 0; i < 3; ++i) launch();
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  cudaEventRecord(start);
  for (int i = 0; i < iters; ++i) launch();
  cudaEventRecord(stop);
  cudaEventSynchronize(stop);
  float ms = 0;
  cudaEventElapsedTime(&ms, start, stop);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms / iters;
}

template <gemm_key K>
void time_against_cublas(const char* label, std::int64_t m, std::int64_t n, std::int64_t k) {
  using a_t = host_t<K.sig.a>;
  using out_t = host_t<K.sig.c>;
  gemm_problem p;
  p.sig = K.sig;
  p.m = m; p.n = n; p.k = k; p.batch = 1;
  p.lda = k; p.ldb = k; p.ldc = n;
  p.stride_a = m * k; p.stride_b = n * k; p.stride_c = m * n;
  std::mt19937 rng(7);
  device_buffer<a_t> da(m * k), db(n * k);
  device_buffer<out_t> dc(m * n), dref(m * n);
  da.upload(random_inputs<a_t>(m * k, rng));
  db.upload(random_inputs<a_t>(n * k, rng));
  gemm_args args;
  args.a = da.ptr; args.b = db.ptr; args.c = dc.ptr;
  ASSERT_FALSE(sm90::gemm<K>::why_not(p, args).has_value());
  std::unique_ptr<cli::cublas_gemm> vendor;
  try {
    vendor = std::make_unique<cli::cublas_gemm>(p, 1.0f, 0.0f);
  } catch (const std::exception& e) {
    std::printf("TIMING %s %ldx%ldx%ld cuBLASLt unavailable: %s\n", label, long(m), long(n), long(k), e.what());
  }
  const int iters = m * n * k >= (std::int64_t{1} << 38) ? 10 : 30;
  double ours = 1e30, theirs = 1e30;
  for (int turn = 0; turn < 3; ++turn) {  // in turns, best of three
    ours = std::min(ours, time_ms([&] { (void)sm90::gemm<K>::run(p, args, nullptr); }, iters));
    if (vendor) theirs = std::min(theirs, time_ms([&] { vendor->run(da.ptr, db.ptr, dref.ptr); }, iters));
  }
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double tflops = 2.0 * m * n * k / (ours * 1e-3) / 1e12;
  if (vendor) {
    const double vendor_tflops = 2.0 * m * n * k / (theirs * 1e-3) / 1e12;
    std::printf("TIMING %-10s %6ldx%6ldx%6ld  kdecl %8.3f ms %7.1f TFLOP/s  cuBLASLt %8.3f ms %7.1f TFLOP/s  ratio %.3f\n",
                label, long(m), long(n), long(k), ours, tflops, theirs, vendor_tflops, theirs / ours);
  } else {
    std::printf("TIMING %-10s %6ldx%6ldx%6ld  kdecl %8.3f ms %7.1f TFLOP/s\n", label, long(m), long(n), long(k), ours,
                tflops);
  }
  std::fflush(stdout);
}

template <gemm_key Large, gemm_key Medium, gemm_key Small>
void time_family(const char* label) {
  time_against_cublas<Large>(label, 4096, 4096, 4096);
  time_against_cublas<Large>(label, 8192, 8192, 8192);
  time_against_cublas<Medium>(label, 4096, 4096, 4096);
  time_against_cublas<Large>(label, 4096, 14336, 4096);  // Llama-3 8B MLP up/gate, 4k tokens
  time_against_cublas<Large>(label, 4096, 4096, 14336);  // Llama-3 8B MLP down, 4k tokens
  time_against_cublas<Small>(label, 64, 8192, 8192);     // decode-sized M
}

TEST(DISABLED_Timing, Fp8E4m3) { KDECL_SM90_REQUIRE_DEVICE(); time_family<fp8_large, fp8_medium, fp8_small_m>("fp8"); }
TEST(DISABLED_Timing, Int8) { KDECL_SM90_REQUIRE_DEVICE(); time_family<int8_large, int8_medium, int8_small_m>("int8"); }
TEST(DISABLED_Timing, Tf32) { KDECL_SM90_REQUIRE_DEVICE(); time_family<tf32_large, tf32_medium, tf32_small_m>("tf32"); }

}  // namespace
