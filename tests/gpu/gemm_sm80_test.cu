// Tests of the sm_80 cp_async GEMM family (kdecl::kernels::cuda::sm80::gemm<K>),
// instantiated directly for a set of keys and checked against a double-precision
// host reference: every layout, ragged sizes in each of M, N, K, batches,
// alpha/beta, multi_d ops, the preshuffled B format, pad off, and narrow
// vector widths serving pointers that are only 4 or 8 bytes aligned.
//
// Set KDECL_SM80_BENCH=1 to also time fp16/bf16/tf32/fp32/int8/fp8 4096^3 against cuBLAS.
#include <gtest/gtest.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "kdecl/kernels/gemm/cuda/preshuffle.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/gemm_sm80.cuh"
#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace {

using namespace kdecl;
namespace sm80 = kdecl::kernels::cuda::sm80;

bool have_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define REQUIRE_DEVICE() \
  if (!have_device()) GTEST_SKIP() << "no CUDA device"

// ---------------------------------------------------------------------------
// Keys

struct key_spec {
  dtype a = dtype::fp16, b = dtype::fp16, c = dtype::fp16, compute = dtype::fp16;
  gemm_layout lay = rcr;
  mnk tile{128, 128, 32}, warps{2, 2, 1}, warp_tile{64, 64, 16};
  int stages = 3;
  epilogue epi = epilogue::cshuffle;
  int vec = 16;
  gemm_variant variant = gemm_variant::standard;
  elementwise ew = elementwise::pass_through;
  int num_d = 0;
  tristate pad = tristate::yes;
};

constexpr gemm_key make_key(key_spec s) {
  gemm_key k{};
  k.sig.a = s.a;
  k.sig.b = s.b;
  k.sig.c = s.c;
  k.sig.acc = default_accumulator(s.a);
  k.sig.compute = s.compute;
  k.sig.lay = s.lay;
  k.sig.variant = s.variant;
  k.sig.ew = s.ew;
  k.sig.num_d = s.num_d;
  k.algo.tile = s.tile;
  k.algo.warps = s.warps;
  k.algo.warp_tile = s.warp_tile;
  k.algo.pipe = pipeline::cp_async;
  k.algo.stages = s.stages;
  k.algo.epi = s.epi;
  k.algo.sched = scheduler::intrawave;
  k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = s.pad;
  k.algo.vector_bytes = s.vec;
  k.algo.arch = arch_id::sm_80;
  return k;
}

constexpr gemm_layout rcc{layout::row, layout::col, layout::col};
constexpr gemm_layout crc{layout::col, layout::row, layout::col};

// ---------------------------------------------------------------------------
// Host element conversions

template <class T>
T from_double(double v) {
  if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float(v));
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __float2bfloat16_rn(float(v));
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>) return T(float(v));
  else if constexpr (std::is_integral_v<T>) return T(std::lround(v));
  else return T(v);
}
template <class T>
double to_double(T v) {
  if constexpr (std::is_same_v<T, __half>) return __half2float(v);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>) return __bfloat162float(v);
  else if constexpr (std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>) return float(v);
  else return double(v);
}

template <class T>
std::vector<T> random_values(std::size_t count, std::mt19937& rng) {
  std::vector<T> v(count);
  if constexpr (std::is_integral_v<T>) {
    std::uniform_int_distribution<int> d(-8, 8);
    for (auto& x : v) {
      int r = d(rng);
      x = T(r == 0 ? 1 : r);
    }
  } else {
    std::uniform_real_distribution<double> d(-1.0, 1.0);
    for (auto& x : v) {
      double r = d(rng);
      if (std::fabs(r) < 1e-3) r = 0.5;
      x = from_double<T>(r);
    }
  }
  return v;
}

double reference_ew(elementwise e, double x) {
  switch (e) {
    case elementwise::relu: return x > 0 ? x : 0;
    case elementwise::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case elementwise::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case elementwise::tanh: return std::tanh(x);
    default: return x;
  }
}

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::size_t bytes = 0;
  explicit device_buffer(std::size_t b) : bytes(b) { EXPECT_EQ(cudaMalloc(&ptr, b < 1 ? 1 : b), cudaSuccess); }
  ~device_buffer() { cudaFree(ptr); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

std::int64_t round_up(std::int64_t v, std::int64_t to) { return (v + to - 1) / to * to; }

// ---------------------------------------------------------------------------
// One GEMM against the host reference

struct case_opts {
  std::int64_t m = 1, n = 1, k = 1, batch = 1;
  float alpha = 1.0f, beta = 0.0f;
  std::int64_t ld_extra = 0;      // elements added to every leading dim (after alignment)
  std::int64_t align_elems = 0;   // leading dims rounded to this (0: vector_bytes / element size)
  std::int64_t ptr_offset_bytes = 0;  // offsets every pointer from its allocation (misalignment)
  bool expect_refusal = false;
  unsigned seed = 1;
};

template <gemm_key K>
struct harness {
  using cfg = sm80::config<K>;
  using ta = typename cfg::ta;
  using tb = typename cfg::tb;
  using tc = typename cfg::tc;
  using kernel = sm80::gemm<K>;

  static double tolerance() {
    if (cfg::int_acc) return 0.0;
    if (K.sig.compute == dtype::fp32) return 1e-5;
    if (K.sig.compute == dtype::tf32) return 1e-3;
    return 1e-2;
  }

  static void check(const case_opts& o) {
    SCOPED_TRACE("m=" + std::to_string(o.m) + " n=" + std::to_string(o.n) + " k=" + std::to_string(o.k) +
                 " batch=" + std::to_string(o.batch) + " alpha=" + std::to_string(o.alpha) +
                 " beta=" + std::to_string(o.beta));
    std::mt19937 rng(o.seed * 7919u + unsigned(o.m * 31 + o.n * 17 + o.k));
    gemm_problem p;
    p.sig = K.sig;
    p.sizes(o.m, o.n, o.k).batched(o.batch);
    auto ld_for = [&](std::int64_t cols, int eb) {
      const std::int64_t al = o.align_elems > 0 ? o.align_elems : std::max<std::int64_t>(1, cfg::vec / eb);
      return round_up(cols, al) + o.ld_extra;
    };
    p.lda = ld_for(p.cols_a(), sizeof(ta));
    p.ldb = ld_for(p.cols_b(), sizeof(tb));
    p.ldc = ld_for(p.cols_c(), sizeof(tc));
    p.ldd = p.ldc;
    // Batch strides with a gap, so a kernel reading or writing past its batch is caught.
    p.stride_a = p.rows_a() * p.lda + o.ld_extra + (o.align_elems > 0 ? o.align_elems : 16);
    p.stride_b = p.rows_b() * p.ldb + o.ld_extra + (o.align_elems > 0 ? o.align_elems : 16);
    p.stride_c = p.rows_c() * p.ldc + o.ld_extra + (o.align_elems > 0 ? o.align_elems : 16);
    p.stride_d = p.stride_c;
    const int bits_b = bits_of(K.sig.b);
    if constexpr (cfg::preshuffle) p.stride_b = kernels::preshuffled_elements(o.k, o.n, bits_b);

    const std::int64_t logical_stride_b = p.rows_b() * p.ldb + 16;
    auto a_h = random_values<ta>(std::size_t(p.stride_a * o.batch), rng);
    auto b_h = random_values<tb>(std::size_t((cfg::preshuffle ? logical_stride_b : p.stride_b) * o.batch), rng);
    std::vector<tc> c_h(std::size_t(p.stride_c * o.batch));
    std::memset(c_h.data(), 0xFF, c_h.size() * sizeof(tc));  // poison
    auto c_old = random_values<tc>(c_h.size(), rng);
    const bool read_c = o.beta != 0.0f;
    auto c_index = [&](std::int64_t b, std::int64_t i, std::int64_t j) {
      return b * p.stride_c + (K.sig.lay.c == layout::row ? i * p.ldc + j : j * p.ldc + i);
    };
    if (read_c)
      for (std::int64_t b = 0; b < o.batch; ++b)
        for (std::int64_t i = 0; i < o.m; ++i)
          for (std::int64_t j = 0; j < o.n; ++j) c_h[c_index(b, i, j)] = c_old[c_index(b, i, j)];
    std::vector<std::vector<tc>> d_h;
    for (int t = 0; t < cfg::num_d; ++t) d_h.push_back(random_values<tc>(std::size_t(p.stride_d * o.batch), rng));

    // Device buffers; every pointer may be shifted by ptr_offset_bytes.
    const std::int64_t off = o.ptr_offset_bytes;
    device_buffer<unsigned char> a_d(a_h.size() * sizeof(ta) + off), c_d(c_h.size() * sizeof(tc) + off);
    std::vector<tb> b_image;  // what the kernel reads for B (the logical B, or its preshuffled image)
    if constexpr (cfg::preshuffle) {
      // Device shuffle, checked against the host shuffle.
      device_buffer<unsigned char> logical(b_h.size() * sizeof(tb));
      cudaMemcpy(logical.ptr, b_h.data(), logical.bytes, cudaMemcpyHostToDevice);
      b_image.resize(std::size_t(p.stride_b * o.batch));
      device_buffer<unsigned char> img(b_image.size() * sizeof(tb));
      ASSERT_TRUE(kernels::cuda::preshuffle_b(logical.ptr, K.sig.lay.b, p.ldb, logical_stride_b, o.k, o.n, bits_b,
                                              img.ptr, p.stride_b, o.batch, nullptr)
                      .is_ok());
      cudaMemcpy(b_image.data(), img.ptr, img.bytes, cudaMemcpyDeviceToHost);
      std::vector<tb> host_img(std::size_t(p.stride_b));
      kernels::preshuffle_b_host(b_h.data() + (o.batch - 1) * logical_stride_b, K.sig.lay.b, p.ldb, o.k, o.n, bits_b,
                                 host_img.data());
      ASSERT_EQ(0, std::memcmp(host_img.data(), b_image.data() + (o.batch - 1) * p.stride_b,
                               host_img.size() * sizeof(tb)))
          << "device and host preshuffle disagree";
    } else {
      b_image = b_h;
    }
    device_buffer<unsigned char> b_d(b_image.size() * sizeof(tb) + off);
    cudaMemcpy(a_d.ptr + off, a_h.data(), a_h.size() * sizeof(ta), cudaMemcpyHostToDevice);
    cudaMemcpy(b_d.ptr + off, b_image.data(), b_image.size() * sizeof(tb), cudaMemcpyHostToDevice);
    cudaMemcpy(c_d.ptr + off, c_h.data(), c_h.size() * sizeof(tc), cudaMemcpyHostToDevice);
    std::vector<std::unique_ptr<device_buffer<unsigned char>>> d_d;
    gemm_args args;
    for (int t = 0; t < cfg::num_d; ++t) {
      d_d.push_back(std::make_unique<device_buffer<unsigned char>>(d_h[t].size() * sizeof(tc) + off));
      cudaMemcpy(d_d.back()->ptr + off, d_h[t].data(), d_h[t].size() * sizeof(tc), cudaMemcpyHostToDevice);
      args.d[t] = d_d.back()->ptr + off;
    }
    args.a = a_d.ptr + off;
    args.b = b_d.ptr + off;
    args.c = c_d.ptr + off;
    args.alpha = o.alpha;
    args.beta = o.beta;

    const auto why = kernel::why_not(p, args);
    if (o.expect_refusal) {
      EXPECT_TRUE(why.has_value()) << "a problem the kernel cannot serve was accepted";
      return;
    }
    ASSERT_FALSE(why.has_value()) << *why;
    const status st = kernel::run(p, args, nullptr);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    std::vector<tc> out(c_h.size());
    cudaMemcpy(out.data(), c_d.ptr + off, out.size() * sizeof(tc), cudaMemcpyDeviceToHost);

    // Reference, in double. Operands are first gathered as A[m][k] and B[n][k].
    std::vector<double> ar(std::size_t(o.m * o.k)), br(std::size_t(o.n * o.k));
    double err2 = 0, ref2 = 0;
    bool nan_seen = false;
    for (std::int64_t b = 0; b < o.batch; ++b) {
      for (std::int64_t i = 0; i < o.m; ++i)
        for (std::int64_t kk = 0; kk < o.k; ++kk)
          ar[i * o.k + kk] = to_double(a_h[b * p.stride_a + (K.sig.lay.a == layout::row ? i * p.lda + kk : kk * p.lda + i)]);
      for (std::int64_t j = 0; j < o.n; ++j)
        for (std::int64_t kk = 0; kk < o.k; ++kk) {
          std::int64_t at;
          if constexpr (cfg::preshuffle) at = b * p.stride_b + kernels::preshuffled_offset(kk, j, o.k, o.n, bits_b);
          else at = b * p.stride_b + (K.sig.lay.b == layout::row ? kk * p.ldb + j : j * p.ldb + kk);
          br[j * o.k + kk] = to_double(b_image[at]);
        }
      for (std::int64_t i = 0; i < o.m; ++i)
        for (std::int64_t j = 0; j < o.n; ++j) {
          double acc = 0;
          const double* x = &ar[i * o.k];
          const double* y = &br[j * o.k];
          for (std::int64_t kk = 0; kk < o.k; ++kk) acc += x[kk] * y[kk];
          double v = double(o.alpha) * acc;
          const std::int64_t ci = c_index(b, i, j);
          if (read_c) v += double(o.beta) * to_double(c_old[ci]);
          for (int t = 0; t < cfg::num_d; ++t) v += to_double(d_h[t][ci]);
          v = reference_ew(cfg::ew, v);
          if constexpr (std::is_integral_v<tc>) v = std::nearbyint(v);
          const double got = to_double(out[ci]);
          if (std::isnan(got)) nan_seen = true;
          err2 += (got - v) * (got - v);
          ref2 += v * v;
        }
    }
    EXPECT_FALSE(nan_seen) << "NaN (or untouched poison) in the output";
    const double rel = std::sqrt(err2) / std::max(std::sqrt(ref2), 1e-30);
    EXPECT_LE(rel, tolerance()) << "relative Frobenius error " << rel;

    // Everything outside the logical C (leading-dim padding, batch gaps) must be untouched.
    std::vector<bool> logical(out.size(), false);
    for (std::int64_t b = 0; b < o.batch; ++b)
      for (std::int64_t i = 0; i < o.m; ++i)
        for (std::int64_t j = 0; j < o.n; ++j) logical[c_index(b, i, j)] = true;
    std::int64_t clobbered = 0;
    for (std::size_t e = 0; e < out.size(); ++e)
      if (!logical[e] && std::memcmp(&out[e], &c_h[e], sizeof(tc)) != 0) ++clobbered;
    EXPECT_EQ(clobbered, 0) << "elements outside C were written";
  }

  // Each of M, N, K takes every size in {1, 7, 63, 129, 1000, 4097} while the others stay ragged.
  static void size_sweep(float alpha = 1.0f, float beta = 0.0f, std::int64_t batch = 1) {
    const std::int64_t sizes[] = {1, 7, 63, 129, 1000, 4097};
    const std::int64_t base[3] = {97, 75, 83};
    for (int dim = 0; dim < 3; ++dim)
      for (std::int64_t v : sizes) {
        std::int64_t s[3] = {base[0], base[1], base[2]};
        s[dim] = v;
        case_opts o;
        o.m = s[0]; o.n = s[1]; o.k = s[2];
        o.alpha = alpha; o.beta = beta; o.batch = batch;
        check(o);
        if (::testing::Test::HasFailure()) return;
      }
  }
  // A shorter mix: ragged, batched, alpha/beta, padded leading dims.
  static void quick(std::int64_t big = 300) {
    check({.m = 1, .n = 1, .k = 1});
    check({.m = 7, .n = 63, .k = 129, .batch = 3, .alpha = 0.5f, .beta = 2.0f});
    check({.m = big, .n = 129, .k = 1000, .batch = 2, .alpha = -1.0f, .beta = 0.5f, .ld_extra = 0});
    check({.m = 129, .n = big, .k = 63, .alpha = 1.5f, .beta = 0.0f, .ld_extra = 64});
    check({.m = 256, .n = 256, .k = 256, .batch = 2});
  }
};

// ---------------------------------------------------------------------------
// fp16: the four operand layouts, both epilogues, several tile shapes and depths

constexpr gemm_key fp16_rcr_4st_cshuffle = make_key({.stages = 4});
constexpr gemm_key fp16_rcr_3st_direct = make_key({.stages = 3, .epi = epilogue::direct});
constexpr gemm_key fp16_rrr = make_key({.lay = rrr, .tile = {64, 64, 32}, .warp_tile = {32, 32, 16}});
constexpr gemm_key fp16_crr = make_key({.lay = crr, .tile = {64, 128, 32}, .warp_tile = {32, 64, 16}, .stages = 4,
                                        .epi = epilogue::direct});
constexpr gemm_key fp16_ccr = make_key({.lay = ccr, .tile = {128, 64, 64}, .warp_tile = {32, 32, 16}, .stages = 2});
constexpr gemm_key fp16_rcc_direct =
    make_key({.c = dtype::fp32, .lay = rcc, .tile = {64, 64, 32}, .warp_tile = {32, 32, 16}, .epi = epilogue::direct});
constexpr gemm_key fp16_crc_cshuffle =
    make_key({.lay = crc, .tile = {64, 64, 32}, .warp_tile = {32, 16, 16}, .stages = 5});

TEST(Sm80Fp16, RcrFourStagesCshuffle) { REQUIRE_DEVICE(); harness<fp16_rcr_4st_cshuffle>::size_sweep(); }
TEST(Sm80Fp16, RcrThreeStagesDirect) { REQUIRE_DEVICE(); harness<fp16_rcr_3st_direct>::size_sweep(0.75f, -1.0f, 2); }
TEST(Sm80Fp16, Rrr) { REQUIRE_DEVICE(); harness<fp16_rrr>::size_sweep(1.0f, 1.0f); }
TEST(Sm80Fp16, Crr) { REQUIRE_DEVICE(); harness<fp16_crr>::size_sweep(); }
TEST(Sm80Fp16, Ccr) { REQUIRE_DEVICE(); harness<fp16_ccr>::size_sweep(2.0f, 0.5f, 3); }
TEST(Sm80Fp16, ColumnMajorC) {
  REQUIRE_DEVICE();
  harness<fp16_rcc_direct>::quick();
  harness<fp16_crc_cshuffle>::quick();
}

// ---------------------------------------------------------------------------
// bf16, tf32, exact fp32, int8, fp8

constexpr gemm_key bf16_rcr_c32 = make_key({.a = dtype::bf16, .b = dtype::bf16, .c = dtype::fp32,
                                            .compute = dtype::bf16, .tile = {128, 64, 32}, .warp_tile = {64, 32, 16}});
constexpr gemm_key bf16_rrr = make_key({.a = dtype::bf16, .b = dtype::bf16, .c = dtype::bf16, .compute = dtype::bf16,
                                        .lay = rrr, .tile = {64, 64, 32}, .warp_tile = {32, 32, 16}, .stages = 5,
                                        .epi = epilogue::direct});
TEST(Sm80Bf16, RcrFp32Out) { REQUIRE_DEVICE(); harness<bf16_rcr_c32>::size_sweep(); }
TEST(Sm80Bf16, Rrr) { REQUIRE_DEVICE(); harness<bf16_rrr>::quick(); }

constexpr key_spec tf32_spec{.a = dtype::fp32, .b = dtype::fp32, .c = dtype::fp32, .compute = dtype::tf32,
                             .tile = {128, 64, 32}, .warp_tile = {64, 32, 8}};
constexpr gemm_key tf32_rcr = make_key(tf32_spec);
constexpr gemm_key tf32_crr = [] { auto s = tf32_spec; s.lay = crr; s.tile = {64, 64, 16}; s.warp_tile = {32, 32, 8};
                                   s.epi = epilogue::direct; return make_key(s); }();
constexpr gemm_key tf32_rrr = [] { auto s = tf32_spec; s.lay = rrr; s.stages = 4; return make_key(s); }();
constexpr gemm_key tf32_ccr_vec8 = [] { auto s = tf32_spec; s.lay = ccr; s.tile = {64, 64, 16};
                                        s.warp_tile = {32, 32, 8}; s.vec = 8; return make_key(s); }();
TEST(Sm80Tf32, Rcr) { REQUIRE_DEVICE(); harness<tf32_rcr>::size_sweep(); }
TEST(Sm80Tf32, Crr) { REQUIRE_DEVICE(); harness<tf32_crr>::size_sweep(1.0f, 1.0f); }
TEST(Sm80Tf32, Rrr) { REQUIRE_DEVICE(); harness<tf32_rrr>::quick(); }
TEST(Sm80Tf32, CcrEightByteVectors) {
  REQUIRE_DEVICE();
  harness<tf32_ccr_vec8>::quick();
  // Pointers and leading dims only 8-byte aligned: served.
  harness<tf32_ccr_vec8>::check({.m = 77, .n = 99, .k = 65, .batch = 2, .beta = 1.0f, .align_elems = 2,
                                 .ptr_offset_bytes = 8});
}

constexpr key_spec fp32_spec{.a = dtype::fp32, .b = dtype::fp32, .c = dtype::fp32, .compute = dtype::fp32,
                             .tile = {64, 64, 16}, .warp_tile = {32, 32, 1}, .epi = epilogue::direct};
constexpr gemm_key fp32_rcr = make_key(fp32_spec);
constexpr gemm_key fp32_crr = [] { auto s = fp32_spec; s.lay = crr; s.tile = {128, 64, 8}; s.warp_tile = {64, 32, 1};
                                   s.epi = epilogue::cshuffle; return make_key(s); }();
constexpr gemm_key fp32_rrr_vec4 = [] { auto s = fp32_spec; s.lay = rrr; s.vec = 4; s.stages = 4;
                                        return make_key(s); }();
constexpr gemm_key fp32_ccr = [] { auto s = fp32_spec; s.lay = ccr; s.epi = epilogue::cshuffle; return make_key(s); }();
TEST(Sm80Fp32Exact, Rcr) { REQUIRE_DEVICE(); harness<fp32_rcr>::size_sweep(); }
TEST(Sm80Fp32Exact, Crr) { REQUIRE_DEVICE(); harness<fp32_crr>::size_sweep(1.0f, -2.0f, 2); }
TEST(Sm80Fp32Exact, Ccr) { REQUIRE_DEVICE(); harness<fp32_ccr>::quick(); }
TEST(Sm80Fp32Exact, RrrFourByteVectors) {
  REQUIRE_DEVICE();
  harness<fp32_rrr_vec4>::quick();
  harness<fp32_rrr_vec4>::check({.m = 33, .n = 65, .k = 47, .batch = 2, .beta = 1.0f, .align_elems = 1,
                                 .ptr_offset_bytes = 4});
}

constexpr key_spec int8_spec{.a = dtype::int8, .b = dtype::int8, .c = dtype::int32, .compute = dtype::int8,
                             .tile = {128, 128, 64}, .warp_tile = {64, 64, 32}};
constexpr gemm_key int8_rcr = make_key(int8_spec);
constexpr gemm_key int8_rcr_direct_vec4 = [] { auto s = int8_spec; s.tile = {64, 64, 64}; s.warp_tile = {32, 32, 32};
                                               s.epi = epilogue::direct; s.vec = 4; return make_key(s); }();
TEST(Sm80Int8, Rcr) { REQUIRE_DEVICE(); harness<int8_rcr>::size_sweep(1.0f, 1.0f); }
TEST(Sm80Int8, RcrDirectFourByteVectors) {
  REQUIRE_DEVICE();
  harness<int8_rcr_direct_vec4>::quick();
  harness<int8_rcr_direct_vec4>::check({.m = 37, .n = 45, .k = 130, .batch = 2, .alpha = 2.0f, .beta = 1.0f,
                                        .align_elems = 4, .ptr_offset_bytes = 4});
}

bool device_has_fp8() {
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  return major * 10 + minor >= 89;
}
constexpr key_spec fp8_spec{.a = dtype::fp8, .b = dtype::fp8, .c = dtype::fp32, .compute = dtype::fp8,
                            .tile = {128, 128, 64}, .warp_tile = {64, 64, 32}};
constexpr gemm_key fp8_rcr = make_key(fp8_spec);
constexpr gemm_key bf8_fp8_rcr = [] { auto s = fp8_spec; s.a = dtype::bf8; s.compute = dtype::bf8; s.c = dtype::bf16;
                                      s.tile = {64, 64, 64}; s.warp_tile = {32, 32, 32}; s.epi = epilogue::direct;
                                      return make_key(s); }();
TEST(Sm80Fp8, Rcr) {
  REQUIRE_DEVICE();
  if (!device_has_fp8()) {
    harness<fp8_rcr>::check({.m = 64, .n = 64, .k = 64, .expect_refusal = true});
    GTEST_SKIP() << "fp8 needs sm_89+";
  }
  harness<fp8_rcr>::size_sweep();
  harness<bf8_fp8_rcr>::quick();
}

// ---------------------------------------------------------------------------
// multi_d: every elementwise op, 1..4 D tensors, both epilogues

constexpr gemm_key md_gelu = make_key({.variant = gemm_variant::multi_d, .ew = elementwise::gelu, .num_d = 2});
constexpr gemm_key md_relu = make_key({.lay = rrr, .tile = {64, 64, 32}, .warp_tile = {32, 32, 16},
                                       .epi = epilogue::direct, .variant = gemm_variant::multi_d,
                                       .ew = elementwise::relu, .num_d = 1});
constexpr gemm_key md_tanh = make_key({.a = dtype::bf16, .b = dtype::bf16, .c = dtype::bf16, .compute = dtype::bf16,
                                       .lay = rcc, .tile = {64, 128, 32}, .warp_tile = {32, 64, 16},
                                       .variant = gemm_variant::multi_d, .ew = elementwise::tanh, .num_d = 3});
constexpr gemm_key md_sigmoid = [] { auto s = fp32_spec; s.variant = gemm_variant::multi_d;
                                     s.ew = elementwise::sigmoid; s.num_d = 1; return make_key(s); }();
constexpr gemm_key md_add4 = make_key({.lay = crr, .epi = epilogue::direct, .variant = gemm_variant::multi_d,
                                       .ew = elementwise::multi_d_add, .num_d = 4});
TEST(Sm80MultiD, Gelu) { REQUIRE_DEVICE(); harness<md_gelu>::size_sweep(1.0f, 0.5f); }
TEST(Sm80MultiD, ReluDirect) { REQUIRE_DEVICE(); harness<md_relu>::quick(); }
TEST(Sm80MultiD, TanhColumnMajorC) { REQUIRE_DEVICE(); harness<md_tanh>::quick(); }
TEST(Sm80MultiD, SigmoidExactFp32) { REQUIRE_DEVICE(); harness<md_sigmoid>::quick(); }
TEST(Sm80MultiD, AddFourTensors) { REQUIRE_DEVICE(); harness<md_add4>::quick(); }

// ---------------------------------------------------------------------------
// preshuffle: B read from the shuffled image

constexpr gemm_key ps_fp16 = make_key({.stages = 4, .variant = gemm_variant::preshuffle});
constexpr gemm_key ps_bf16_rowb = make_key({.a = dtype::bf16, .b = dtype::bf16, .c = dtype::bf16,
                                            .compute = dtype::bf16, .lay = crr, .tile = {64, 64, 64},
                                            .warp_tile = {32, 32, 16}, .epi = epilogue::direct,
                                            .variant = gemm_variant::preshuffle});
constexpr gemm_key ps_int8 = [] { auto s = int8_spec; s.tile = {64, 128, 64}; s.warp_tile = {32, 64, 32};
                                  s.variant = gemm_variant::preshuffle; return make_key(s); }();
constexpr gemm_key ps_tf32 = [] { auto s = tf32_spec; s.lay = rrr; s.tile = {64, 64, 32}; s.warp_tile = {32, 32, 8};
                                  s.epi = epilogue::direct; s.variant = gemm_variant::preshuffle;
                                  return make_key(s); }();
constexpr gemm_key ps_fp8 = [] { auto s = fp8_spec; s.variant = gemm_variant::preshuffle; return make_key(s); }();
TEST(Sm80Preshuffle, Format) {
  // Every (k, j) of a ragged B lands on a distinct element inside the image.
  for (int bits : {8, 16, 32}) {
    const std::int64_t k = 77, n = 21, total = kernels::preshuffled_elements(k, n, bits);
    std::vector<int> hits(std::size_t(total), 0);
    for (std::int64_t kk = 0; kk < k; ++kk)
      for (std::int64_t j = 0; j < n; ++j) {
        const std::int64_t o = kernels::preshuffled_offset(kk, j, k, n, bits);
        ASSERT_GE(o, 0);
        ASSERT_LT(o, total);
        ++hits[std::size_t(o)];
      }
    for (int h : hits) ASSERT_LE(h, 1);
  }
}
TEST(Sm80Preshuffle, Fp16) { REQUIRE_DEVICE(); harness<ps_fp16>::size_sweep(1.0f, 1.0f, 2); }
TEST(Sm80Preshuffle, Bf16RowMajorB) { REQUIRE_DEVICE(); harness<ps_bf16_rowb>::quick(); }
TEST(Sm80Preshuffle, Int8) { REQUIRE_DEVICE(); harness<ps_int8>::quick(); }
TEST(Sm80Preshuffle, Tf32) { REQUIRE_DEVICE(); harness<ps_tf32>::quick(); }
TEST(Sm80Preshuffle, Fp8) {
  REQUIRE_DEVICE();
  if (!device_has_fp8()) GTEST_SKIP() << "fp8 needs sm_89+";
  harness<ps_fp8>::quick();
}

// ---------------------------------------------------------------------------
// Alignment and padding contracts

constexpr gemm_key fp16_rrr_vec4 = make_key({.lay = rrr, .tile = {64, 64, 32}, .warp_tile = {32, 32, 16},
                                             .epi = epilogue::direct, .vec = 4});
constexpr gemm_key fp16_rcr_vec8 = make_key({.tile = {64, 64, 32}, .warp_tile = {32, 32, 16}, .vec = 8});
constexpr gemm_key fp16_rcr_nopad = make_key({.stages = 4, .pad = tristate::no});

TEST(Sm80Alignment, MisalignedRefusedBySixteenByteInstance) {
  REQUIRE_DEVICE();
  harness<fp16_rrr>::check({.m = 64, .n = 64, .k = 64, .ptr_offset_bytes = 4, .expect_refusal = true});
  harness<fp16_rrr>::check({.m = 64, .n = 64, .k = 62, .align_elems = 2, .expect_refusal = true});
}
TEST(Sm80Alignment, FourByteInstanceServesFourByteAlignment) {
  REQUIRE_DEVICE();
  harness<fp16_rrr_vec4>::quick();
  harness<fp16_rrr_vec4>::check({.m = 67, .n = 129, .k = 95, .batch = 2, .beta = 1.0f, .align_elems = 2,
                                 .ptr_offset_bytes = 4});
  harness<fp16_rrr_vec4>::check({.m = 1000, .n = 7, .k = 4097, .align_elems = 2, .ptr_offset_bytes = 12});
}
TEST(Sm80Alignment, EightByteInstance) {
  REQUIRE_DEVICE();
  harness<fp16_rcr_vec8>::quick();
  harness<fp16_rcr_vec8>::check({.m = 63, .n = 129, .k = 100, .beta = 1.0f, .align_elems = 4, .ptr_offset_bytes = 8});
  harness<fp16_rcr_vec8>::check({.m = 63, .n = 129, .k = 100, .align_elems = 4, .ptr_offset_bytes = 4,
                                 .expect_refusal = true});
}
TEST(Sm80Padding, NoPadOnTileMultiples) {
  REQUIRE_DEVICE();
  harness<fp16_rcr_nopad>::check({.m = 256, .n = 384, .k = 512, .batch = 2, .alpha = 0.5f, .beta = 1.0f});
  harness<fp16_rcr_nopad>::check({.m = 1024, .n = 128, .k = 96});
  harness<fp16_rcr_nopad>::check({.m = 250, .n = 384, .k = 512, .expect_refusal = true});
  harness<fp16_rcr_nopad>::check({.m = 256, .n = 384, .k = 500, .expect_refusal = true});
}
// (A template: nvcc's host pass cannot spell a class-type template argument named
// directly inside a non-template function body.)
template <gemm_key K>
void expect_other_signature_refused() {
  gemm_problem p;
  p.sig = K.sig;
  p.sig.lay = p.sig.lay == rcr ? rrr : rcr;
  p.sizes(64, 64, 64).leading_dims(64, 64, 64).batch_strides(4096, 4096, 4096);
  EXPECT_TRUE(sm80::gemm<K>::why_not(p, gemm_args{}).has_value());
  EXPECT_EQ(sm80::gemm<K>::workspace_bytes(p), 0u);
}
TEST(Sm80Contract, RefusesOtherSignature) {
  REQUIRE_DEVICE();
  expect_other_signature_refused<fp16_rrr>();
}

// ---------------------------------------------------------------------------
// Benchmark against cuBLAS (KDECL_SM80_BENCH=1)

bool bench_enabled() {
  const char* e = std::getenv("KDECL_SM80_BENCH");
  return e && std::string(e) == "1";
}

template <class F>
double time_ms(F&& f, int iters = 20) {
  for (int i = 0; i < 3; ++i) f();
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  cudaEventRecord(a);
  for (int i = 0; i < iters; ++i) f();
  cudaEventRecord(b);
  cudaEventSynchronize(b);
  float ms = 0;
  cudaEventElapsedTime(&ms, a, b);
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return ms / iters;
}

struct cublas_types {
  cudaDataType_t ab, c;
  cublasComputeType_t compute;
  bool int_scalars;
};

// Times sm80::gemm<K> (rcr, 4096^3 unless given) and, when `cb` is given, cuBLAS on the same
// data (C = A B computed as C^T = B^T A^T in cuBLAS' column-major terms: a "TN" GEMM).
template <gemm_key K>
void bench(const char* name, const cublas_types* cb, std::int64_t s = 4096) {
  using cfg = sm80::config<K>;
  using ta = typename cfg::ta;
  using tb = typename cfg::tb;
  using tc = typename cfg::tc;
  gemm_problem p;
  p.sig = K.sig;
  p.sizes(s, s, s).leading_dims(s, s, s).batch_strides(s * s, s * s, s * s);
  std::mt19937 rng(5);
  auto a_h = random_values<ta>(std::size_t(s * s), rng);
  auto b_h = random_values<tb>(std::size_t(s * s), rng);
  device_buffer<ta> a(a_h.size() * sizeof(ta));
  device_buffer<tb> b(b_h.size() * sizeof(tb));
  device_buffer<tc> c(std::size_t(s * s) * sizeof(tc)), c_ref(std::size_t(s * s) * sizeof(tc));
  cudaMemcpy(a.ptr, a_h.data(), a.bytes, cudaMemcpyHostToDevice);
  cudaMemcpy(b.ptr, b_h.data(), b.bytes, cudaMemcpyHostToDevice);
  gemm_args args;
  args.a = a.ptr;
  args.b = b.ptr;
  args.c = c.ptr;
  ASSERT_FALSE(sm80::gemm<K>::why_not(p, args).has_value());
  const double ms = time_ms([&] { (void)sm80::gemm<K>::run(p, args, nullptr); });
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const double tflops = p.flops() / ms / 1e9;
  if (!cb) {
    std::printf("[bench] %-44s %8.3f ms %7.1f TFLOP/s\n", name, ms, tflops);
    return;
  }
  cublasHandle_t h;
  cublasCreate(&h);
  const float alpha = 1, beta = 0;
  const int ialpha = 1, ibeta = 0;
  const void* pa = cb->int_scalars ? static_cast<const void*>(&ialpha) : &alpha;
  const void* pb = cb->int_scalars ? static_cast<const void*>(&ibeta) : &beta;
  const int n = int(s);
  auto call = [&] {
    return cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, n, pa, b.ptr, cb->ab, n, a.ptr, cb->ab, n, pb, c_ref.ptr,
                        cb->c, n, cb->compute, CUBLAS_GEMM_DEFAULT);
  };
  ASSERT_EQ(call(), CUBLAS_STATUS_SUCCESS);
  const double ms_ref = time_ms([&] { (void)call(); });
  cublasDestroy(h);
  // Same answer as cuBLAS?
  std::vector<tc> x(std::size_t(s * s)), y(std::size_t(s * s));
  cudaMemcpy(x.data(), c.ptr, c.bytes, cudaMemcpyDeviceToHost);
  cudaMemcpy(y.data(), c_ref.ptr, c_ref.bytes, cudaMemcpyDeviceToHost);
  double e2 = 0, r2 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double d = to_double(x[i]) - to_double(y[i]);
    e2 += d * d;
    r2 += to_double(y[i]) * to_double(y[i]);
  }
  const double rel = std::sqrt(e2 / std::max(r2, 1e-30));
  std::printf("[bench] %-44s %8.3f ms %7.1f TFLOP/s | cuBLAS %8.3f ms %7.1f TFLOP/s | %5.1f%% | rel.diff %.2e\n",
              name, ms, tflops, ms_ref, p.flops() / ms_ref / 1e9, 100.0 * ms_ref / ms, rel);
  EXPECT_LE(rel, 1e-2);
}

constexpr gemm_key b_fp16_128x128_st3_cs = make_key({.stages = 3});
constexpr gemm_key b_fp16_128x256 = make_key({.tile = {128, 256, 32}, .warps = {2, 4, 1}, .stages = 3});
constexpr gemm_key b_fp16_256x128 = make_key({.tile = {256, 128, 32}, .warps = {4, 2, 1}, .stages = 3});
constexpr gemm_key b_fp16_128x128x64 = make_key({.tile = {128, 128, 64}, .stages = 3});
constexpr gemm_key b_fp16_128x128_st5 = make_key({.stages = 5});
constexpr gemm_key b_fp16_128x64 = make_key({.tile = {128, 64, 32}, .warp_tile = {64, 32, 16}, .stages = 4});
constexpr gemm_key b_fp16_128x128_st4_direct = make_key({.stages = 4, .epi = epilogue::direct});
constexpr gemm_key b_bf16 = make_key({.a = dtype::bf16, .b = dtype::bf16, .c = dtype::bf16, .compute = dtype::bf16,
                                      .stages = 4});
constexpr gemm_key b_tf32 = [] { auto s = tf32_spec; s.tile = {128, 128, 32}; s.warp_tile = {64, 64, 8};
                                 return make_key(s); }();
constexpr gemm_key b_fp32 = [] { auto s = fp32_spec; s.tile = {128, 128, 8}; s.warps = {2, 4, 1};
                                 s.warp_tile = {64, 32, 1}; s.epi = epilogue::cshuffle; return make_key(s); }();
constexpr gemm_key b_int8 = int8_rcr;
constexpr gemm_key b_fp8 = [] { auto s = fp8_spec; s.c = dtype::fp16; return make_key(s); }();

TEST(Sm80Bench, AgainstCublas) {
  REQUIRE_DEVICE();
  if (!bench_enabled()) GTEST_SKIP() << "set KDECL_SM80_BENCH=1";
  const cublas_types f16{CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, false};
  const cublas_types b16{CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, false};
  const cublas_types t32{CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, false};
  const cublas_types f32{CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, false};
  const cublas_types i8{CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I, true};
  bench<fp16_rcr_4st_cshuffle>("fp16 128x128x32 2x2 64x64x16 st4 cshuffle", &f16);
  bench<b_fp16_128x128_st3_cs>("fp16 128x128x32 2x2 64x64x16 st3 cshuffle", &f16);
  bench<fp16_rcr_3st_direct>("fp16 128x128x32 2x2 64x64x16 st3 direct", &f16);
  bench<b_fp16_128x128_st4_direct>("fp16 128x128x32 2x2 64x64x16 st4 direct", &f16);
  bench<b_fp16_128x128_st5>("fp16 128x128x32 2x2 64x64x16 st5 cshuffle", &f16);
  bench<b_fp16_128x64>("fp16 128x64x32 2x2 64x32x16 st4 cshuffle", &f16);
  bench<b_fp16_128x128x64>("fp16 128x128x64 2x2 64x64x16 st3 cshuffle", &f16);
  bench<b_fp16_128x256>("fp16 128x256x32 2x4 64x64x16 st3 cshuffle", &f16);
  bench<b_fp16_256x128>("fp16 256x128x32 4x2 64x64x16 st3 cshuffle", &f16);
  bench<ps_fp16>("fp16 preshuffle 128x128x32 st4 cshuffle", nullptr);
  bench<b_bf16>("bf16 128x128x32 2x2 64x64x16 st4 cshuffle", &b16);
  bench<b_tf32>("tf32 128x128x32 2x2 64x64x8 st3 cshuffle", &t32);
  bench<b_fp32>("fp32 exact 128x128x8 2x4 64x32x1 st3 cshuffle", &f32);
  bench<b_int8>("int8 128x128x64 2x2 64x64x32 st3 cshuffle", &i8);
  if (device_has_fp8()) bench<b_fp8>("fp8 e4m3 128x128x64 2x2 64x64x32 st3 cshuffle", nullptr);
}

}  // namespace
