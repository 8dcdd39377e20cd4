// Tests of the sm_90a tma_wgmma GEMM family (kdecl::kernels::cuda::sm90::gemm<K>)
// against a double-precision host reference. Every output is poisoned (0xFF bytes,
// NaN for 16-bit floats) before the run; padding columns of C must stay poisoned.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <thread>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/sm90/transposed_fragment_store.cuh"
#include "kdecl/kernels/gemm/cuda/gemm_kernel_cuda.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/column_major_c.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90.cuh"

namespace {

using namespace kdecl;
namespace sm90 = kdecl::kernels::cuda::sm90;

// ---------------------------------------------------------------- keys under test

constexpr gemm_key make_key(dtype in, dtype out, gemm_layout lay, int tm, int tn, int consumer_wgs, int stages,
                            gemm_variant variant = gemm_variant::standard,
                            elementwise ew = elementwise::pass_through, int num_d = 0,
                            tristate pad = tristate::yes, epilogue epi = epilogue::direct) {
  gemm_key k{};
  k.sig = {in, in, out, dtype::fp32, in, lay, variant, ew, num_d};
  k.algo.tile = {tm, tn, 64};
  k.algo.warps = {4 * consumer_wgs, 1, 1};
  k.algo.warp_tile = {16, tn, 16};
  k.algo.pipe = pipeline::tma_wgmma;
  k.algo.stages = stages;
  k.algo.epi = epi;
  k.algo.sched = scheduler::intrawave;
  k.algo.pad_m = k.algo.pad_n = k.algo.pad_k = pad;
  k.algo.vector_bytes = 16;
  k.algo.cluster_m = k.algo.cluster_n = 1;
  k.algo.arch = arch_id::sm_90;
  return k;
}

// ---------------------------------------------------------------- host helpers

template <class T> float to_f(T v);
template <> float to_f(__half v) { return __half2float(v); }
template <> float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }
template <> float to_f(float v) { return v; }
template <class T> T from_f(float v);
template <> __half from_f(float v) { return __float2half_rn(v); }
template <> __nv_bfloat16 from_f(float v) { return __float2bfloat16_rn(v); }
template <> float from_f(float v) { return v; }

double apply_ew(elementwise e, double x) {
  switch (e) {
    case elementwise::relu: return x > 0 ? x : 0;
    case elementwise::gelu: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case elementwise::sigmoid: return 1.0 / (1.0 + std::exp(-x));
    case elementwise::tanh: return std::tanh(x);
    default: return x;
  }
}

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
  explicit device_buffer(std::size_t n) : count(n) { EXPECT_EQ(cudaMalloc(&ptr, std::max<std::size_t>(n, 1) * sizeof(T)), cudaSuccess); }
  ~device_buffer() { cudaFree(ptr); }
  void upload(const std::vector<T>& h) { ASSERT_EQ(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess); }
  std::vector<T> download() const {
    std::vector<T> h(count);
    EXPECT_EQ(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
    return h;
  }
};

struct shape {
  std::int64_t m, n, k, batch = 1;
};

// The kernel of a key as the registry runs it (gemm_kernel_cuda.cuh): sm90::gemm<K>, or for
// column-major C the row-major kernel on the transposed problem (column_major_c.cuh).
template <gemm_key K>
using kernel_of = kernels::gemm_kernel<K, backend::cuda>;

// Runs one problem through the key's kernel and compares with the host reference. C's
// leading dimension is its stored rows' length (N, or M for column-major C) rounded up to
// 16 bytes plus `ldc_extra` elements (default: 16 bytes more); `c_via_tma`, where given,
// receives whether the epilogue stored C through TMA.
// `forced_splits` > 0: launched by run_with_splits with that many K splits instead of run().
template <gemm_key K>
void check_problem(shape s, float alpha, float beta, unsigned seed, std::int64_t ldc_extra = -1,
                   bool* c_via_tma = nullptr, int forced_splits = 0) {
  using kernel = kernel_of<K>;
  constexpr bool c_row = K.sig.lay.c == layout::row;
  using in_t = kernels::cuda::storage_t<K.sig.a>;
  using out_t = kernels::cuda::storage_t<K.sig.c>;
  constexpr bool multi_d = K.sig.variant == gemm_variant::multi_d;
  constexpr int num_d = multi_d ? K.sig.num_d : 0;
  SCOPED_TRACE(testing::Message() << "m=" << s.m << " n=" << s.n << " k=" << s.k << " batch=" << s.batch
                                  << " alpha=" << alpha << " beta=" << beta);

  gemm_problem p;
  p.sig = K.sig;
  p.m = s.m; p.n = s.n; p.k = s.k; p.batch = s.batch;
  const std::int64_t align_in = 16 / sizeof(in_t), align_out = 16 / sizeof(out_t);
  // Leading dimensions padded past the 16-byte minimum, so strides differ from extents.
  p.lda = round_up(p.cols_a(), align_in) + align_in;
  p.ldb = round_up(p.cols_b(), align_in);
  p.ldc = round_up(p.cols_c(), align_out) + (ldc_extra >= 0 ? ldc_extra : align_out);
  p.ldd = multi_d ? round_up(p.cols_c(), align_out) + 2 * align_out : 0;  // D's own leading dim and stride
  p.stride_a = round_up(p.lda * p.rows_a(), align_in) + align_in;
  p.stride_b = p.ldb * p.rows_b();
  p.stride_c = p.ldc * p.rows_c() + align_out;
  p.stride_d = multi_d ? p.ldd * p.rows_c() + align_out : 0;

  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  auto random_vec = [&](std::size_t n, auto zero) {
    std::vector<decltype(zero)> v(n);
    for (auto& x : v) x = from_f<decltype(zero)>(uni(rng));
    return v;
  };
  const auto ha = random_vec(p.stride_a * s.batch, in_t{});
  const auto hb = random_vec(p.stride_b * s.batch, in_t{});
  std::vector<out_t> hc(p.stride_c * s.batch);
  std::memset(hc.data(), 0xFF, hc.size() * sizeof(out_t));
  // Element (i, j) of C (and of each D) within one batch entry, for either layout of C.
  const auto c_at = [&](std::int64_t i, std::int64_t j, std::int64_t ld) { return c_row ? i * ld + j : j * ld + i; };
  if (beta != 0.0f) {
    for (std::int64_t b = 0; b < s.batch; ++b)
      for (std::int64_t i = 0; i < s.m; ++i)
        for (std::int64_t j = 0; j < s.n; ++j) hc[b * p.stride_c + c_at(i, j, p.ldc)] = from_f<out_t>(uni(rng));
  }
  std::vector<std::vector<out_t>> hd;
  for (int i = 0; i < num_d; ++i) hd.push_back(random_vec(p.stride_d * s.batch, out_t{}));

  device_buffer<in_t> da(ha.size()), db(hb.size());
  device_buffer<out_t> dc(hc.size());
  da.upload(ha); db.upload(hb); dc.upload(hc);
  std::vector<std::unique_ptr<device_buffer<out_t>>> dd;
  gemm_args args;
  args.a = da.ptr; args.b = db.ptr; args.c = dc.ptr; args.alpha = alpha; args.beta = beta;
  for (int i = 0; i < num_d; ++i) {
    dd.push_back(std::make_unique<device_buffer<out_t>>(hd[i].size()));
    dd.back()->upload(hd[i]);
    args.d[i] = dd.back()->ptr;
  }
  // Split-K reduces inside a thread-block cluster; only a split tail needs workspace, a slot
  // and a flag per block (run() takes memory of its own here, as no workspace is lent).
  const sm90::launch_plan plan = kernel::plan(p);
  EXPECT_EQ(kernel::workspace_bytes(p),
            plan.sched.tail_tiles > 0 ? sm90::tail_workspace::bytes(plan.grid, K.algo.tile.m, K.algo.tile.n) : 0u);

  const auto why = kernel::why_not(p, args);
  ASSERT_FALSE(why.has_value()) << *why;
  if (c_via_tma != nullptr) {
    const gemm_problem rp = sm90::transposed_for_row_major_c(p);
    *c_via_tma = sm90::gemm<sm90::row_major_c_key(K)>::stores_c_through_tma(rp, sm90::transposed_for_row_major_c(args),
                                                                            plan.sched.splits);
  }
  const status st = [&] {
    if constexpr (c_row)
      if (forced_splits > 0) return sm90::gemm<K>::run_with_splits(p, args, nullptr, forced_splits);
    return kernel::run(p, args, nullptr);
  }();
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  const auto out = dc.download();

  // Host reference in double, rows split over threads.
  auto A = [&](std::int64_t b, std::int64_t i, std::int64_t kk) {
    return double(to_f(K.sig.lay.a == layout::row ? ha[b * p.stride_a + i * p.lda + kk] : ha[b * p.stride_a + kk * p.lda + i]));
  };
  auto B = [&](std::int64_t b, std::int64_t kk, std::int64_t j) {
    return double(to_f(K.sig.lay.b == layout::row ? hb[b * p.stride_b + kk * p.ldb + j] : hb[b * p.stride_b + j * p.ldb + kk]));
  };
  std::vector<double> ref(s.batch * s.m * s.n);
  const unsigned workers = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> arow(s.k);
      for (std::int64_t bi = t; bi < s.batch * s.m; bi += workers) {
        const std::int64_t b = bi / s.m, i = bi % s.m;
        for (std::int64_t kk = 0; kk < s.k; ++kk) arow[kk] = A(b, i, kk);
        for (std::int64_t j = 0; j < s.n; ++j) {
          double acc = 0;
          for (std::int64_t kk = 0; kk < s.k; ++kk) acc += arow[kk] * B(b, kk, j);
          double v = alpha * acc;
          if (beta != 0.0f) v += beta * double(to_f(hc[b * p.stride_c + c_at(i, j, p.ldc)]));
          for (int d = 0; d < num_d; ++d) v += double(to_f(hd[d][b * p.stride_d + c_at(i, j, p.ldd)]));
          ref[(b * s.m + i) * s.n + j] = apply_ew(K.sig.ew, v);
        }
      }
    });
  for (auto& th : pool) th.join();

  double err2 = 0, ref2 = 0;
  std::int64_t bad_padding = 0, nans = 0;
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t i = 0; i < s.m; ++i)
      for (std::int64_t j = 0; j < s.n; ++j) {
        const double o = to_f(out[b * p.stride_c + c_at(i, j, p.ldc)]);
        const double r = ref[(b * s.m + i) * s.n + j];
        if (std::isnan(o)) ++nans;
        err2 += (o - r) * (o - r);
        ref2 += r * r;
      }
  // Stored rows (C's rows, or its columns when column-major) must not be written past their length...
  for (std::int64_t b = 0; b < s.batch; ++b)
    for (std::int64_t r = 0; r < p.rows_c(); ++r)
      for (std::int64_t c = p.cols_c(); c < p.ldc; ++c) {
        out_t poison;
        std::memset(&poison, 0xFF, sizeof poison);
        if (std::memcmp(&out[b * p.stride_c + r * p.ldc + c], &poison, sizeof poison) != 0) ++bad_padding;
      }
  for (std::int64_t b = 0; b < s.batch; ++b)  // nor past the last one: the gap before the next matrix
    for (std::int64_t e = (p.rows_c() - 1) * p.ldc + p.ldc; e < p.stride_c; ++e) {
      out_t poison;
      std::memset(&poison, 0xFF, sizeof poison);
      if (std::memcmp(&out[b * p.stride_c + e], &poison, sizeof poison) != 0) ++bad_padding;
    }
  const double rel = std::sqrt(err2) / std::max(std::sqrt(ref2), 1e-30);
  EXPECT_EQ(nans, 0);
  EXPECT_EQ(bad_padding, 0) << "writes past column n";
  const double tol = sizeof(out_t) == 4 ? 5e-3 : 1e-2;  // fp32 C still carries 16-bit inputs
  EXPECT_LT(rel, tol) << "relative Frobenius error";
}

// Shapes where every extent meets each of 1, 7, 63, 129, 1000, 4097 (host cost kept small).
const std::vector<shape> edge_shapes = {
    {1, 1, 1},        {7, 7, 7},       {63, 63, 63},   {129, 129, 129}, {1000, 7, 63},  {7, 1000, 129},
    {63, 129, 1000},  {4097, 63, 7},   {1, 4097, 129}, {129, 1, 4097},  {4097, 129, 1}, {63, 4097, 63},
    {129, 63, 1000, 3}, {1000, 1000, 129}};

template <gemm_key K>
void run_edge_shapes() {
  unsigned seed = 1;
  for (const shape& s : edge_shapes) {
    check_problem<K>(s, 1.0f, 0.0f, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  check_problem<K>({129, 200, 300, 2}, 0.5f, -1.5f, seed++);   // alpha/beta, batched
  check_problem<K>({1000, 1000, 1000}, 1.0f, 1.0f, seed++);    // many tiles per block
  check_problem<K>({64, 1000, 4097}, 1.0f, 0.0f, seed++);      // few tiles: split-K (cluster)
  check_problem<K>({100, 512, 2048, 2}, -1.0f, 0.25f, seed++); // split-K, batched, beta
}

#define KDECL_SM90_REQUIRE_DEVICE() \
  if (!have_sm90()) GTEST_SKIP() << "no sm_90 CUDA device"

// The performance configuration, bf16 in every layout.
constexpr gemm_key bf16_rcr_128x256 = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4);
constexpr gemm_key bf16_rrr_128x256 = make_key(dtype::bf16, dtype::bf16, rrr, 128, 256, 2, 4);
constexpr gemm_key bf16_crr_128x256 = make_key(dtype::bf16, dtype::bf16, crr, 128, 256, 2, 4);
constexpr gemm_key bf16_ccr_128x256 = make_key(dtype::bf16, dtype::bf16, ccr, 128, 256, 2, 4);
// fp16 with other tile shapes, one per layout.
constexpr gemm_key fp16_rcr_64x128 = make_key(dtype::fp16, dtype::fp16, rcr, 64, 128, 1, 8);
constexpr gemm_key fp16_rrr_256x128 = make_key(dtype::fp16, dtype::fp16, rrr, 256, 128, 2, 3);
constexpr gemm_key fp16_crr_64x192 = make_key(dtype::fp16, dtype::fp16, crr, 64, 192, 1, 6);
constexpr gemm_key fp16_ccr_128x64 = make_key(dtype::fp16, dtype::fp16, ccr, 128, 64, 2, 6);
// fp32 output, unpadded.
constexpr gemm_key fp16_rcr_f32out = make_key(dtype::fp16, dtype::fp32, rcr, 128, 128, 2, 4);
constexpr gemm_key bf16_rcr_nopad = make_key(dtype::bf16, dtype::bf16, rcr, 128, 128, 2, 4,
                                             gemm_variant::standard, elementwise::pass_through, 0, tristate::no);

TEST(GemmSm90, Bf16RcrTile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_rcr_128x256>(); }
TEST(GemmSm90, Bf16RrrTile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_rrr_128x256>(); }
TEST(GemmSm90, Bf16CrrTile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_crr_128x256>(); }
TEST(GemmSm90, Bf16CcrTile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_ccr_128x256>(); }
TEST(GemmSm90, Fp16RcrTile64x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_rcr_64x128>(); }
TEST(GemmSm90, Fp16RrrTile256x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_rrr_256x128>(); }
TEST(GemmSm90, Fp16CrrTile64x192) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_crr_64x192>(); }
TEST(GemmSm90, Fp16CcrTile128x64) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_ccr_128x64>(); }
TEST(GemmSm90, Fp16InFp32Out) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_rcr_f32out>(); }

// The staged (cshuffle) epilogue on standard GEMMs.
constexpr gemm_key bf16_rcr_128x256_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4,
    gemm_variant::standard, elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
constexpr gemm_key fp16_crr_f32out_cshuffle = make_key(dtype::fp16, dtype::fp32, crr, 128, 128, 2, 4,
    gemm_variant::standard, elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
TEST(GemmSm90, Bf16RcrTile128x256Cshuffle) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_rcr_128x256_cshuffle>(); }
TEST(GemmSm90, Fp16CrrFp32OutCshuffle) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_crr_f32out_cshuffle>(); }

TEST(GemmSm90, UnpaddedKeyOnDivisibleSizes) {
  KDECL_SM90_REQUIRE_DEVICE();
  check_problem<bf16_rcr_nopad>({256, 384, 512}, 1.0f, 0.0f, 11);
  check_problem<bf16_rcr_nopad>({128, 128, 64, 2}, 2.0f, 0.5f, 12);
  check_problem<bf16_rcr_nopad>({128, 256, 4096}, 1.0f, 0.0f, 13);  // split-K
}

// Column-major C, every layout: the row-major kernel of row_major_c_key(K) on C^T
// (column_major_c.cuh), A and B exchanged and read as their transposes.
constexpr gemm_key bf16_rcc_128x256 = make_key(dtype::bf16, dtype::bf16, rcc, 128, 256, 2, 4, gemm_variant::standard,
                                               elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
constexpr gemm_key fp16_rrc_64x128 = make_key(dtype::fp16, dtype::fp16, rrc, 64, 128, 1, 8);
constexpr gemm_key bf16_crc_128x128 = make_key(dtype::bf16, dtype::bf16, crc, 128, 128, 2, 6, gemm_variant::standard,
                                               elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
constexpr gemm_key fp16_ccc_f32out = make_key(dtype::fp16, dtype::fp32, ccc, 128, 128, 2, 4);
constexpr gemm_key bf16_rcc_gelu_d2 = make_key(dtype::bf16, dtype::bf16, rcc, 64, 128, 1, 6, gemm_variant::multi_d,
                                               elementwise::gelu, 2, tristate::yes, epilogue::cshuffle);
static_assert(sm90::row_major_c_key(bf16_rcc_128x256).sig.lay == rcr);
static_assert(sm90::row_major_c_key(fp16_rrc_64x128).sig.lay == ccr);
static_assert(sm90::row_major_c_key(bf16_crc_128x128).sig.lay == crr);
static_assert(sm90::row_major_c_key(fp16_ccc_f32out).sig.lay == rrr);

TEST(GemmSm90ColumnMajorC, Bf16RccTile128x256) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_rcc_128x256>(); }
TEST(GemmSm90ColumnMajorC, Fp16RrcTile64x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_rrc_64x128>(); }
TEST(GemmSm90ColumnMajorC, Bf16CrcTile128x128) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<bf16_crc_128x128>(); }
TEST(GemmSm90ColumnMajorC, Fp16CccFp32Out) { KDECL_SM90_REQUIRE_DEVICE(); run_edge_shapes<fp16_ccc_f32out>(); }
TEST(GemmSm90ColumnMajorC, MultiDGeluTwoD) {
  KDECL_SM90_REQUIRE_DEVICE();
  check_problem<bf16_rcc_gelu_d2>({129, 1000, 129}, 1.0f, 0.0f, 31);
  check_problem<bf16_rcc_gelu_d2>({1000, 63, 1000, 2}, 0.5f, 0.5f, 32);
}
// C^T's rows are C's columns: M elements long. M a multiple of 8 (16 bytes) and beta = 0:
// the TMA store; an odd M: the staged epilogue. Both against the reference.
TEST(GemmSm90ColumnMajorC, TmaStoreAndStagedPaths) {
  KDECL_SM90_REQUIRE_DEVICE();
  bool via_tma = false;
  check_problem<bf16_rcc_128x256>({1000, 72, 192}, 1.0f, 0.0f, 33, -1, &via_tma);
  EXPECT_TRUE(via_tma);
  check_problem<bf16_rcc_128x256>({999, 72, 192}, 1.0f, 0.0f, 34, -1, &via_tma);
  EXPECT_FALSE(via_tma);
}

// multi_d: every elementwise op, 1..4 D tensors.
constexpr gemm_key multi_d_key(elementwise e, int num_d) {
  return make_key(dtype::bf16, dtype::bf16, rcr, 64, 128, 1, 6, gemm_variant::multi_d, e, num_d, tristate::yes,
                  epilogue::cshuffle);
}
constexpr gemm_key md_pass = multi_d_key(elementwise::pass_through, 1);
constexpr gemm_key md_add = multi_d_key(elementwise::multi_d_add, 4);
constexpr gemm_key md_relu = multi_d_key(elementwise::relu, 2);
constexpr gemm_key md_gelu = multi_d_key(elementwise::gelu, 3);
constexpr gemm_key md_sigmoid = multi_d_key(elementwise::sigmoid, 1);
constexpr gemm_key md_tanh = multi_d_key(elementwise::tanh, 2);

template <gemm_key K>
void run_multi_d() {
  check_problem<K>({129, 1000, 129}, 1.0f, 0.0f, 21);
  check_problem<K>({1000, 63, 1000, 2}, 0.5f, 0.5f, 22);
  check_problem<K>({64, 1000, 2048}, 1.0f, 1.0f, 23);  // split-K
}

TEST(GemmSm90, MultiDPassThrough) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_pass>(); }
TEST(GemmSm90, MultiDAdd) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_add>(); }
TEST(GemmSm90, MultiDRelu) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_relu>(); }
TEST(GemmSm90, MultiDGelu) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_gelu>(); }
TEST(GemmSm90, MultiDSigmoid) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_sigmoid>(); }
TEST(GemmSm90, MultiDTanh) { KDECL_SM90_REQUIRE_DEVICE(); run_multi_d<md_tanh>(); }

constexpr gemm_key bf16_rcr_128x256_gelu =
    make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::multi_d, elementwise::gelu, 1);
constexpr gemm_key bf16_rcr_128x256_gelu_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4,
    gemm_variant::multi_d, elementwise::gelu, 1, tristate::yes, epilogue::cshuffle);
TEST(GemmSm90, MultiDGeluPerformanceTile) {
  KDECL_SM90_REQUIRE_DEVICE();
  check_problem<bf16_rcr_128x256_gelu>({1000, 1000, 1000}, 1.0f, 0.0f, 31);
  check_problem<bf16_rcr_128x256_gelu>({4097, 129, 63, 2}, 1.0f, -1.0f, 32);
  check_problem<bf16_rcr_128x256_gelu_cshuffle>({1000, 1000, 1000}, 1.0f, 0.0f, 33);
  check_problem<bf16_rcr_128x256_gelu_cshuffle>({4097, 129, 63, 2}, 1.0f, -1.0f, 34);
}

// multi_d keys whose D tiles travel by TMA through the ring (d_tiles.cuh): the
// performance tile with 1 D (2 D slots) and 4 D (6 slots on a 4-deep ring, freed
// strip by strip), fp32 C/D (16 KiB chunks, as many slots as stages), and a 256-row
// tile with two m64 blocks per consumer in rrr.
constexpr gemm_key bf16_rcr_128x256_add4_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4,
    gemm_variant::multi_d, elementwise::multi_d_add, 4, tristate::yes, epilogue::cshuffle);
constexpr gemm_key bf16_rcr_128x256_sigmoid4_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4,
    gemm_variant::multi_d, elementwise::sigmoid, 4, tristate::yes, epilogue::cshuffle);
constexpr gemm_key fp16_rcr_f32out_tanh2_cshuffle = make_key(dtype::fp16, dtype::fp32, rcr, 128, 128, 2, 4,
    gemm_variant::multi_d, elementwise::tanh, 2, tristate::yes, epilogue::cshuffle);
constexpr gemm_key fp16_rrr_256x128_relu2_cshuffle = make_key(dtype::fp16, dtype::fp16, rrr, 256, 128, 2, 3,
    gemm_variant::multi_d, elementwise::relu, 2, tristate::yes, epilogue::cshuffle);

template <gemm_key K>
constexpr bool d_through_ring = sm90::d_tile_layout<sm90::sm90_config<K>>::enabled;
static_assert(d_through_ring<bf16_rcr_128x256_gelu_cshuffle> && d_through_ring<bf16_rcr_128x256_add4_cshuffle> &&
              d_through_ring<fp16_rcr_f32out_tanh2_cshuffle> && d_through_ring<fp16_rrr_256x128_relu2_cshuffle> &&
              d_through_ring<md_add> && d_through_ring<md_gelu>);
template <gemm_key K>
constexpr int d_slots = sm90::d_tile_layout<sm90::sm90_config<K>>::slots;
static_assert(d_slots<bf16_rcr_128x256_add4_cshuffle> == 6);
static_assert(!d_through_ring<bf16_rcr_128x256_gelu>);  // direct epilogue: D from global memory

TEST(GemmSm90, MultiDThroughRingPerformanceTile) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_edge_shapes<bf16_rcr_128x256_gelu_cshuffle>();
}
TEST(GemmSm90, MultiDThroughRingFourD) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_multi_d<bf16_rcr_128x256_add4_cshuffle>();
  check_problem<bf16_rcr_128x256_add4_cshuffle>({1000, 1000, 1000}, 1.0f, 0.0f, 51);
  check_problem<bf16_rcr_128x256_add4_cshuffle>({4097, 63, 7}, 1.0f, 0.0f, 52);
  run_multi_d<bf16_rcr_128x256_sigmoid4_cshuffle>();
}
TEST(GemmSm90, MultiDThroughRingFp32Out) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_multi_d<fp16_rcr_f32out_tanh2_cshuffle>();
  check_problem<fp16_rcr_f32out_tanh2_cshuffle>({1000, 1000, 1000}, 1.0f, 0.5f, 53);
}
TEST(GemmSm90, MultiDThroughRingTwoBlocksPerConsumer) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_multi_d<fp16_rrr_256x128_relu2_cshuffle>();
  check_problem<fp16_rrr_256x128_relu2_cshuffle>({1000, 1000, 1000}, 1.0f, 0.0f, 54);
  check_problem<fp16_rrr_256x128_relu2_cshuffle>({300, 129, 4097, 3}, 1.0f, -0.5f, 55);
}

// Split-K: the K splits of a tile run as one thread-block cluster and reduce
// through distributed shared memory. First, that the plans really split where the
// tests above rely on it (and do not where there are tiles enough).
template <gemm_key K>
int splits_for(shape s) {
  gemm_problem p;
  p.sig = K.sig;
  p.sizes(s.m, s.n, s.k).batched(s.batch);
  return sm90::gemm<K>::plan(p).sched.splits;
}

constexpr gemm_key fp16_rcr_64x256_cshuffle = make_key(dtype::fp16, dtype::fp16, rcr, 64, 256, 1, 5,
    gemm_variant::standard, elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
constexpr gemm_key bf16_rcr_64x64_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 64, 64, 1, 12,
    gemm_variant::standard, elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle);
constexpr gemm_key bf16_rcr_64x128_f32out = make_key(dtype::bf16, dtype::fp32, rcr, 64, 128, 1, 8);
constexpr gemm_key bf16_rcr_128x256_gelu2_cshuffle = make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4,
    gemm_variant::multi_d, elementwise::gelu, 2, tristate::yes, epilogue::cshuffle);

TEST(GemmSm90, SplitKPlansUseClusters) {
  KDECL_SM90_REQUIRE_DEVICE();
  EXPECT_GT(splits_for<bf16_rcr_128x256>({64, 1000, 4097}), 1);
  EXPECT_GT(splits_for<fp16_rcr_64x128>({64, 1000, 4097}), 1);
  EXPECT_GT(splits_for<bf16_rcr_128x256>({100, 512, 2048, 2}), 1);
  EXPECT_GT(splits_for<md_gelu>({64, 1000, 2048}), 1);
  EXPECT_GE(splits_for<fp16_rcr_64x256_cshuffle>({16, 512, 8192}), 4);
  EXPECT_GT(splits_for<bf16_rcr_128x256_gelu2_cshuffle>({128, 1024, 4096}), 1);
  EXPECT_EQ(splits_for<bf16_rcr_128x256>({4096, 4096, 4096}), 1);
  EXPECT_EQ(splits_for<bf16_rcr_128x256>({64, 1000, 64}), 1);  // too few k-blocks to split
}

TEST(GemmSm90, SplitKSmallM) {
  KDECL_SM90_REQUIRE_DEVICE();
  check_problem<fp16_rcr_64x256_cshuffle>({16, 512, 8192}, 1.0f, 0.0f, 41);    // 2 tiles, up to 8 splits
  check_problem<fp16_rcr_64x256_cshuffle>({16, 4096, 4096}, 1.0f, 0.0f, 42);
  check_problem<bf16_rcr_64x64_cshuffle>({16, 4096, 4096}, 1.0f, 0.5f, 43);
  check_problem<bf16_rcr_64x64_cshuffle>({7, 100, 5000}, -2.0f, 0.0f, 44);    // one partial tile, ragged edges
  check_problem<bf16_rcr_64x128_f32out>({100, 700, 3000, 2}, 0.5f, 1.0f, 45);  // fp32 C, batched, beta
  check_problem<bf16_rcr_128x256_gelu2_cshuffle>({128, 1024, 4096}, 1.0f, 0.0f, 46);  // W2, multi_d gelu
  check_problem<bf16_rcr_128x256_gelu2_cshuffle>({65, 300, 2000}, 1.0f, 1.0f, 47);
}

// run_with_splits (the split probe's entry point) computes the same GEMM with any K split,
// including counts plan() never picks (3, 5, more clusters than fit at once, one k-block each).
TEST(GemmSm90, ForcedSplitsAreTheSameGemm) {
  constexpr gemm_key pp = [] {
    gemm_key k = make_key(dtype::bf16, dtype::bf16, rcr, 64, 128, 1, 8);
    k.algo.sched = scheduler::pingpong;
    return k;
  }();
  gemm_problem p;
  p.sig = bf16_rcr_64x64_cshuffle.sig;
  const gemm_args none;
  const status nine = sm90::gemm<bf16_rcr_64x64_cshuffle>::run_with_splits(p, none, nullptr, 9);
  ASSERT_FALSE(nine.is_ok());
  EXPECT_NE(nine.message().find("splits = 9 is outside 1..8"), std::string::npos) << nine.message();
  const status ping = sm90::gemm<pp>::run_with_splits(p, none, nullptr, 2);
  ASSERT_FALSE(ping.is_ok());
  EXPECT_NE(ping.message().find("never splits K"), std::string::npos) << ping.message();

  KDECL_SM90_REQUIRE_DEVICE();
  for (int splits : {1, 3, 5, 8}) {
    SCOPED_TRACE(testing::Message() << "forced splits " << splits);
    check_problem<bf16_rcr_64x64_cshuffle>({197, 300, 2000}, 1.0f, 0.0f, 60 + splits, -1, nullptr, splits);
    check_problem<bf16_rcr_128x256_gelu2_cshuffle>({65, 300, 1000}, 1.0f, 1.0f, 70 + splits, -1, nullptr, splits);
    check_problem<bf16_rcr_64x128_f32out>({100, 700, 3000, 2}, 0.5f, 1.0f, 80 + splits, -1, nullptr, splits);
  }
  check_problem<bf16_rcr_64x64_cshuffle>({7, 100, 300}, -2.0f, 0.0f, 90, -1, nullptr, 8);  // 5 k-blocks: 5 splits
}

// Which launches start under the kernel before them (gemm_sm90.cuh's launches_as_dependent): short
// blocks of work do, long persistent runs (measured slower that way) do not. No device needed.
TEST(GemmSm90, DependentLaunchOnlyForShortBlocks) {
  const auto dependent = [](std::int64_t m, std::int64_t n, std::int64_t k, int tile_m, int tile_n) {
    gemm_problem p;
    p.sizes(m, n, k);
    const sm90::launch_plan plan = sm90::plan_launch(p, tile_m, tile_n, 64, 132, nullptr);
    return sm90::launches_as_dependent(plan, tile_m, tile_n, 64, 1);
  };
  EXPECT_TRUE(dependent(1024, 1024, 1024, 128, 128));  // one tile per block
  EXPECT_TRUE(dependent(197, 1024, 4096, 128, 128));   // 16 tiles, K = 4096
  EXPECT_TRUE(dependent(6304, 768, 768, 128, 256));    // two tiles of K = 768 per block
  EXPECT_TRUE(dependent(1576, 3072, 1024, 64, 64));
  EXPECT_FALSE(dependent(4096, 4096, 4096, 128, 256)); // four tiles of K = 4096
  EXPECT_FALSE(dependent(16384, 3072, 768, 128, 128));
  EXPECT_FALSE(dependent(8192, 8192, 8192, 128, 256));
}

// fast_erf (common/elementwise.cuh, behind GELU) on the device, with its ex2.approx,
// against std::erf in double: |error| < 1e-6 over [-10, 10]; GELU within 1e-6 * max(1, |x|).
__global__ void eval_fast_erf_and_gelu(const float* x, float* erf_out, float* gelu_out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    erf_out[i] = kdecl::kernels::cuda::fast_erf(x[i]);
    gelu_out[i] = kdecl::kernels::cuda::apply_elementwise<elementwise::gelu>(x[i]);
  }
}

TEST(GemmSm90, FastErfOnDevice) {
  KDECL_SM90_REQUIRE_DEVICE();
  constexpr int n = 1 << 22;
  std::vector<float> x(n);
  for (int i = 0; i < n; ++i) x[i] = -10.0f + 20.0f * static_cast<float>(i) / (n - 1);
  device_buffer<float> dx(n), derf(n), dgelu(n);
  ASSERT_EQ(cudaMemcpy(dx.ptr, x.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  eval_fast_erf_and_gelu<<<n / 256, 256>>>(dx.ptr, derf.ptr, dgelu.ptr, n);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<float> erf_out(n), gelu_out(n);
  ASSERT_EQ(cudaMemcpy(erf_out.data(), derf.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(gelu_out.data(), dgelu.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  double erf_err = 0, gelu_err = 0;
  for (int i = 0; i < n; ++i) {
    const double e = std::fabs(erf_out[i] - std::erf(static_cast<double>(x[i])));
    const double g = std::fabs(gelu_out[i] - apply_ew(elementwise::gelu, x[i])) / std::max(1.0, std::fabs(double(x[i])));
    ASSERT_FALSE(std::isnan(e) || std::isnan(g)) << x[i];
    erf_err = std::max(erf_err, e);
    gelu_err = std::max(gelu_err, g);
  }
  std::printf("device fast_erf: max |error| over [-10, 10] %.3g; gelu max |error| / max(1, |x|) %.3g\n", erf_err,
              gelu_err);
  EXPECT_LT(erf_err, 1e-6);
  EXPECT_LT(gelu_err, 1e-6);
}

TEST(GemmSm90, WhyNotNamesUnsupportedInputs) {
  // Key-level reasons need no device.
  constexpr gemm_key tf32_key = [] {
    gemm_key k = make_key(dtype::bf16, dtype::bf16, rcr, 128, 128, 2, 4);
    k.sig.a = k.sig.b = k.sig.c = dtype::fp32;
    k.sig.compute = dtype::tf32;
    return k;
  }();
  gemm_problem p;
  gemm_args a;
  auto why = sm90::gemm<tf32_key>::why_not(p, a);
  ASSERT_TRUE(why.has_value());
  // tf32 runs on wgmma now, but with K = 8 per instruction: a 16-bit warp tile is named as the rule it breaks.
  EXPECT_NE(why->find("8 for tf32"), std::string::npos) << *why;
  EXPECT_FALSE(sm90::gemm<tf32_key>::run(p, a, nullptr).is_ok());

  KDECL_SM90_REQUIRE_DEVICE();
  // A leading dimension that is not a multiple of 16 bytes.
  p.sig = bf16_rcr_128x256.sig;
  p.sizes(64, 64, 65).leading_dims(65, 72, 64).batch_strides(65 * 64, 72 * 64, 64 * 64);
  device_buffer<__nv_bfloat16> buf(1 << 16);
  a.a = a.b = buf.ptr;
  a.c = buf.ptr;
  why = sm90::gemm<bf16_rcr_128x256>::why_not(p, a);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("16 bytes"), std::string::npos) << *why;
  EXPECT_FALSE(sm90::gemm<bf16_rcr_128x256>::run(p, a, nullptr).is_ok());
  // An unpadded key on a size that is not a tile multiple.
  p.sizes(100, 128, 64).leading_dims(64, 64, 128);
  why = sm90::gemm<bf16_rcr_nopad>::why_not(p, a);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("pad_m"), std::string::npos) << *why;
}


// ---------------------------------------------------------------- pingpong schedule
// Two consumer warpgroups on alternate tiles of the block's share (warps (4,1,1) name
// one of them). Beyond the edge shapes, problems with several tiles per block, so
// that both consumers take turns, step over each other's ring slots (k-blocks and D
// slots) and hand the main loop over through the named barriers.
constexpr gemm_key as_pingpong(gemm_key k) {
  k.algo.sched = scheduler::pingpong;
  return k;
}
constexpr gemm_key pp_bf16_rcr_128x128 =
    as_pingpong(make_key(dtype::bf16, dtype::bf16, rcr, 128, 128, 1, 6, gemm_variant::standard,
                         elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle));
constexpr gemm_key pp_fp16_crr_64x256 =
    as_pingpong(make_key(dtype::fp16, dtype::fp16, crr, 64, 256, 1, 5, gemm_variant::standard,
                         elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle));
constexpr gemm_key pp_bf16_ccr_64x128_direct = as_pingpong(make_key(dtype::bf16, dtype::bf16, ccr, 64, 128, 1, 8));
constexpr gemm_key pp_fp16_rrr_128x128_f32out =
    as_pingpong(make_key(dtype::fp16, dtype::fp32, rrr, 128, 128, 1, 4, gemm_variant::standard,
                         elementwise::pass_through, 0, tristate::yes, epilogue::cshuffle));
// D tiles through the ring: a consumer also steps over the other's D slots.
constexpr gemm_key pp_bf16_rcr_128x128_add2 =
    as_pingpong(make_key(dtype::bf16, dtype::bf16, rcr, 128, 128, 1, 6, gemm_variant::multi_d,
                         elementwise::multi_d_add, 2, tristate::yes, epilogue::cshuffle));
static_assert(sm90::sm90_config<pp_bf16_rcr_128x128>::threads == 384, "producer + two consumers");
static_assert(!sm90::sm90_config<pp_bf16_rcr_128x128>::split_k_fits, "pingpong never splits K");
static_assert(d_through_ring<pp_bf16_rcr_128x128_add2>);

template <gemm_key K>
void run_pingpong_shapes() {
  run_edge_shapes<K>();
  if (::testing::Test::HasFatalFailure()) return;
  unsigned seed = 101;
  check_problem<K>({3000, 3000, 64}, 1.0f, 0.0f, seed++);     // 4-5 tiles per block: both consumers, many turns
  check_problem<K>({1100, 1000, 300, 3}, 0.5f, 1.0f, seed++); // batched, beta
  check_problem<K>({2500, 2100, 97}, 1.0f, 0.0f, seed++);     // odd K: a partial k-block per tile
}

TEST(GemmSm90Pingpong, Bf16Rcr128x128) { KDECL_SM90_REQUIRE_DEVICE(); run_pingpong_shapes<pp_bf16_rcr_128x128>(); }
TEST(GemmSm90Pingpong, Fp16Crr64x256) { KDECL_SM90_REQUIRE_DEVICE(); run_pingpong_shapes<pp_fp16_crr_64x256>(); }
TEST(GemmSm90Pingpong, Bf16Ccr64x128Direct) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<pp_bf16_ccr_64x128_direct>();
}
TEST(GemmSm90Pingpong, Fp16RrrFp32Out) { KDECL_SM90_REQUIRE_DEVICE(); run_pingpong_shapes<pp_fp16_rrr_128x128_f32out>(); }
TEST(GemmSm90Pingpong, MultiDThroughRing) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<pp_bf16_rcr_128x128_add2>();
}
TEST(GemmSm90Pingpong, NeverSplitsK) {
  KDECL_SM90_REQUIRE_DEVICE();
  EXPECT_EQ(splits_for<pp_bf16_rcr_128x128>({64, 1000, 4097}), 1);
}

// ---------------------------------------------------------------- split tail
// Split tail (tail_split.cuh): the partial last wave's tiles cut in K over adjacent blocks.
// The schedule first, on the host: every (tile, k-block) is run exactly once, a tail tile's
// ranges sit on consecutive blocks in order, each block holds at most one of them, last.
TEST(GemmSm90SplitTail, ScheduleCoversEveryKBlockOnce) {
  struct schedule_case { int tiles_m, tiles_n, batch, k_blocks, blocks; };
  for (const schedule_case c : {schedule_case{8, 19, 1, 25, 132}, {9, 8, 2, 32, 132}, {4, 40, 1, 128, 132},
                                schedule_case{3, 5, 1, 40, 7}, {1, 17, 3, 64, 16}, {1, 17, 3, 64, 24}}) {
    SCOPED_TRACE(testing::Message() << c.tiles_m << "x" << c.tiles_n << " batch " << c.batch << " k-blocks "
                                    << c.k_blocks << " blocks " << c.blocks);
    sm90::tile_scheduler s{};
    s.tiles_m = c.tiles_m; s.tiles_n = c.tiles_n; s.batch = c.batch; s.k_blocks = c.k_blocks;
    s.splits = 1; s.group_m = 2;
    const sm90::tail_split tail = sm90::plan_tail_split(s.tiles(), s.k_blocks, c.blocks);
    ASSERT_GT(tail.tiles, 0) << "the planner should split this tail";
    s.tail_tiles = tail.tiles; s.tail_splits = tail.splits; s.workers = c.blocks;
    std::vector<int> runs(static_cast<std::size_t>(s.tiles()) * s.k_blocks, 0);
    for (int b = 0; b < c.blocks; ++b) {
      const int units = s.units_for(b, c.blocks);
      for (int i = 0; i < units; ++i) {
        const sm90::tile_work w = s.unit_for(b, c.blocks, i);
        ASSERT_TRUE(w.valid);
        ASSERT_LT(w.k_block_begin, w.k_block_end);
        for (int kb = w.k_block_begin; kb < w.k_block_end; ++kb) ++runs[std::size_t(w.tile) * s.k_blocks + kb];
        if (s.in_tail(w)) {
          EXPECT_EQ(i, units - 1) << "a block's tail range is its last unit";
          EXPECT_EQ(w.split, b % s.tail_splits);
          EXPECT_EQ(s.unit_for(b - w.split, c.blocks, s.units_for(b - w.split, c.blocks) - 1).tile, w.tile)
              << "range 0 of the tile (its head) is on the block split places before";
        }
      }
    }
    EXPECT_EQ(std::count(runs.begin(), runs.end(), 1), static_cast<std::ptrdiff_t>(runs.size()));
  }
  // Where it does not split: full waves, fewer tiles than blocks (cluster split-K's), short K.
  EXPECT_EQ(sm90::plan_tail_split(264, 64, 132).tiles, 0);
  EXPECT_EQ(sm90::plan_tail_split(96, 576, 132).tiles, 0);
  EXPECT_EQ(sm90::plan_tail_split(200, 12, 132).tiles, 0);
  EXPECT_EQ(sm90::plan_tail_split(150, 6, 132).tiles, 0);
  EXPECT_EQ(sm90::plan_tail_split(156, 16, 132).tiles, 0) << "1576x3072x1024 on 128x256 ran slower split";
}

// fast_divmod (kernels/cuda/fast_divmod.cuh): n / d by multiply-high equals the division for
// divisors of every size class and dividends up to 2^31 - 1.
TEST(GemmSm90Schedule, FastDivmodDividesExactly) {
  std::mt19937 rng(7);
  std::vector<int> divisors{1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 31, 32, 33, 127, 128, 129, 132, 1000, 65535, 65536, 65537,
                            (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 0x7fffffff};
  for (int i = 0; i < 200; ++i) divisors.push_back(1 + int(rng() % 100000));
  for (int i = 0; i < 50; ++i) divisors.push_back(1 + int(rng() & 0x7ffffffe));
  for (const int d : divisors) {
    const kdecl::kernels::cuda::fast_divmod f(d);
    std::vector<int> dividends{0, 1, d - 1, d, d + 1, 2 * d - 1, 0x7fffffff, 0x7ffffffe};
    for (int i = 0; i < 400; ++i) dividends.push_back(int(rng() & 0x7fffffff));
    for (int i = 0; i < 100; ++i) dividends.push_back(int(rng() % 4096));
    for (const int n : dividends) {
      if (n < 0) continue;  // 2 * d - 1 past 2^31
      ASSERT_EQ(f.div(n), n / d) << n << " / " << d;
      ASSERT_EQ(f.mod(n), n % d) << n << " % " << d;
    }
  }
}

// fast_tile_scheduler gives every block the units tile_scheduler gives it, in the same order,
// over plain grids, split-K, multicast pairs, batches, raster groups and split tails.
TEST(GemmSm90Schedule, FastSchedulerWalksTheSameUnits) {
  std::mt19937 rng(11);
  auto pick = [&](int lo, int hi) { return lo + int(rng() % unsigned(hi - lo + 1)); };
  int compared = 0;
  for (int trial = 0; trial < 1200; ++trial) {
    sm90::tile_scheduler s{};
    s.tiles_m = pick(1, trial % 3 == 0 ? 300 : 20);
    s.tiles_n = pick(1, trial % 5 == 0 ? 300 : 20);
    s.batch = trial % 4 == 0 ? pick(1, 9) : 1;
    s.k_blocks = pick(1, 200);
    const int kind = trial % 4;  // 0 plain, 1 split-K, 2 multicast, 3 split tail
    s.splits = kind == 1 ? std::min(pick(2, 8), s.k_blocks) : 1;
    if (kind == 2) (rng() & 1 ? s.cluster_m : s.cluster_n) = 2;
    s.group_m = pick(1, std::max(s.pairs_m(), 1) + 2);
    int clusters = kind == 1 ? s.units() : pick(1, 140);
    if (kind == 3) {
      const int blocks = pick(8, 140);
      const sm90::tail_split tail = sm90::plan_tail_split(s.tiles(), s.k_blocks, blocks);
      if (tail.tiles == 0) continue;
      s.tail_tiles = tail.tiles;
      s.tail_splits = tail.splits;
      s.workers = blocks;
      clusters = blocks;
    }
    const sm90::fast_tile_scheduler f(s, clusters);
    for (int c = 0; c < clusters; ++c) {
      const int units = s.units_for(c, clusters);
      ASSERT_EQ(f.units_for(c), units) << "trial " << trial << " block " << c;
      for (int i = 0; i < units; ++i) {
        for (int rank = 0; rank < (kind == 2 ? 2 : 1); ++rank) {
          const sm90::tile_work a = s.unit_for(c, clusters, i, rank), b = f.unit_for(c, i, rank);
          SCOPED_TRACE(testing::Message() << "trial " << trial << " block " << c << " unit " << i << " rank " << rank);
          ASSERT_EQ(b.batch, a.batch);
          ASSERT_EQ(b.tile_m, a.tile_m);
          ASSERT_EQ(b.tile_n, a.tile_n);
          ASSERT_EQ(b.tile, a.tile);
          ASSERT_EQ(b.split, a.split);
          ASSERT_EQ(b.k_block_begin, a.k_block_begin);
          ASSERT_EQ(b.k_block_end, a.k_block_end);
          ASSERT_EQ(b.valid, a.valid);
          ASSERT_EQ(b.order, a.order);
          ++compared;
        }
      }
    }
  }
  EXPECT_GT(compared, 40000);
}

template <gemm_key K>
sm90::tail_split tail_for(shape s) {
  gemm_problem p;
  p.sig = K.sig;
  p.sizes(s.m, s.n, s.k).batched(s.batch);
  const sm90::tile_scheduler sched = sm90::gemm<K>::plan(p).sched;
  return {sched.tail_tiles, sched.tail_splits};
}

TEST(GemmSm90SplitTail, MatchesReference) {
  KDECL_SM90_REQUIRE_DEVICE();
  // On a 132-SM H100/H200 each of these leaves a partial last wave the planner splits.
  const shape wide{1024, 4800, 1600}, batched{1100, 2000, 2000, 2}, fp32_out{1000, 2200, 2000};
  if (tail_for<bf16_rcr_128x256_cshuffle>(wide).tiles == 0)
    GTEST_SKIP() << "this GPU's SM count leaves these shapes no split tail";
  EXPECT_GT(tail_for<bf16_rcr_128x256_cshuffle>(batched).tiles, 0);
  EXPECT_GT(tail_for<fp16_crr_f32out_cshuffle>(fp32_out).tiles, 0);
  EXPECT_GT(tail_for<bf16_rcr_128x256>(wide).tiles, 0);
  bool tma = false;
  check_problem<bf16_rcr_128x256_cshuffle>(wide, 1.0f, 0.0f, 61, -1, &tma);  // heads store C through TMA
  EXPECT_TRUE(tma);
  check_problem<bf16_rcr_128x256_cshuffle>(batched, 0.5f, 1.0f, 62);         // staged epilogue, beta, batches
  check_problem<fp16_crr_f32out_cshuffle>(fp32_out, 1.0f, 0.0f, 63);         // M-major A, fp32 C
  check_problem<bf16_rcr_128x256>(wide, -1.0f, 0.0f, 64);                    // direct epilogue
  // Pingpong and multicast clusters keep whole tiles.
  EXPECT_EQ(tail_for<pp_bf16_rcr_128x128>(wide).tiles, 0);
}

// ---------------------------------------------------------------- C stored through TMA
// (epilogue_tma_store.cuh) where the launch allows it, by the staged epilogue elsewhere.
static_assert(sm90::tma_store_chunks<sm90::sm90_config<bf16_rcr_128x256_cshuffle>>::enabled);
static_assert(sm90::tma_store_chunks<sm90::sm90_config<fp16_crr_f32out_cshuffle>>::cols == 16, "fp32: 16 per row");
static_assert(!sm90::tma_store_chunks<sm90::sm90_config<bf16_rcr_128x256>>::enabled, "direct epilogue: no strips");
static_assert(!sm90::tma_store_chunks<sm90::sm90_config<md_pass>>::enabled, "D tensors: staged");

TEST(GemmSm90TmaStore, PathChoice) {
  using g = sm90::gemm<bf16_rcr_128x256_cshuffle>;
  gemm_problem p;
  p.sig = bf16_rcr_128x256_cshuffle.sig;
  p.m = 1000; p.n = 1000; p.k = 64; p.batch = 1;
  p.lda = 64; p.ldb = 64; p.ldc = 1000; p.stride_c = 1000 * 1000;
  gemm_args a;
  alignas(16) static unsigned char c[64];
  a.c = c;
  EXPECT_TRUE(g::stores_c_through_tma(p, a, 1));
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 2)) << "split-K reduces through the cluster";
  a.beta = 1.0f;
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 1)) << "beta != 0 reads C";
  a.beta = 0.0f;
  a.c = c + 2;
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 1)) << "C not 16-byte aligned";
  a.c = c;
  p.ldc = 1001;
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 1)) << "ldc not a multiple of 16 bytes";
  p.ldc = 1000;
  p.n = 999;
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 1)) << "rows not a multiple of 16 bytes: TMA would write past N";
  p.n = 1000;
  p.batch = 2;
  p.stride_c = 1000 * 1000 + 1;
  EXPECT_FALSE(g::stores_c_through_tma(p, a, 1)) << "batch stride not a multiple of 16 bytes";
  p.stride_c = 1000 * 1000 + 8;
  EXPECT_TRUE(g::stores_c_through_tma(p, a, 1));
  EXPECT_FALSE(sm90::gemm<bf16_rcr_128x256>::stores_c_through_tma(p, a, 1)) << "direct epilogue";
}

TEST(GemmSm90TmaStore, BothPathsMatchReference) {
  KDECL_SM90_REQUIRE_DEVICE();
  bool tma = false;
  // Rows and columns past M and N clipped by TMA, alpha, batches with padded strides.
  check_problem<bf16_rcr_128x256_cshuffle>({1001, 1000, 200}, 1.5f, 0.0f, 201, -1, &tma);
  EXPECT_TRUE(tma);
  check_problem<bf16_rcr_128x256_cshuffle>({1000, 72, 64, 3}, 1.0f, 0.0f, 202, -1, &tma);  // one k-block: no split-K
  EXPECT_TRUE(tma);
  check_problem<bf16_rcr_128x256_cshuffle>({129, 63, 1000, 3}, 1.0f, 0.0f, 208, -1, &tma);
  EXPECT_FALSE(tma) << "N = 63 rows end mid-16-byte: the staged epilogue stores them";
  // Many tiles per block: the strip halves alternate across tiles (cooperative and pingpong,
  // two m64 blocks per consumer).
  check_problem<bf16_rcr_128x256_cshuffle>({3000, 3000, 64}, 1.0f, 0.0f, 203, -1, &tma);
  EXPECT_TRUE(tma);
  check_problem<pp_bf16_rcr_128x128>({3000, 3000, 64, 2}, 1.0f, 0.0f, 204, -1, &tma);
  EXPECT_TRUE(tma);
  check_problem<pp_fp16_rrr_128x128_f32out>({2500, 2100, 97}, 1.0f, 0.0f, 205, -1, &tma);
  EXPECT_TRUE(tma);  // fp32: N a multiple of 4
  // The same keys where TMA cannot store C: ldc one element past a 16-byte multiple, beta.
  check_problem<bf16_rcr_128x256_cshuffle>({1001, 1000, 200}, 1.5f, 0.0f, 206, 1, &tma);
  EXPECT_FALSE(tma);
  check_problem<pp_bf16_rcr_128x128>({3000, 3000, 64}, 1.0f, 0.5f, 207, -1, &tma);
  EXPECT_FALSE(tma);
}


// ---------------------------------------------------------------- multicast clusters
// Two blocks on neighbouring tiles share B (2x1) or A (1x2), each loading half of it into
// both by TMA multicast: K-major halves (one box each) and M/N-major 64-wide boxes taken
// alternately, odd tile counts (the last pair's second block computes nothing it stores),
// batches, several pairs per cluster.
constexpr gemm_key with_cluster(gemm_key k, int cm, int cn) {
  k.algo.cluster_m = cm;
  k.algo.cluster_n = cn;
  return k;
}
constexpr gemm_key mc_bf16_rcr_128x256_2x1 = with_cluster(
    make_key(dtype::bf16, dtype::bf16, rcr, 128, 256, 2, 4, gemm_variant::standard, elementwise::pass_through, 0,
             tristate::yes, epilogue::cshuffle), 2, 1);
constexpr gemm_key mc_fp16_rcr_128x256_1x2 = with_cluster(
    make_key(dtype::fp16, dtype::fp16, rcr, 128, 256, 2, 4, gemm_variant::standard, elementwise::pass_through, 0,
             tristate::yes, epilogue::cshuffle), 1, 2);
constexpr gemm_key mc_bf16_rcr_256x128_1x2 = with_cluster(
    make_key(dtype::bf16, dtype::bf16, rcr, 256, 128, 2, 4, gemm_variant::standard, elementwise::pass_through, 0,
             tristate::yes, epilogue::cshuffle), 1, 2);
constexpr gemm_key mc_bf16_crr_128x128_1x2 = with_cluster(make_key(dtype::bf16, dtype::bf16, crr, 128, 128, 2, 6), 1, 2);
constexpr gemm_key mc_fp16_rrr_128x128_2x1_f32out = with_cluster(
    make_key(dtype::fp16, dtype::fp32, rrr, 128, 128, 2, 4, gemm_variant::standard, elementwise::pass_through, 0,
             tristate::yes, epilogue::cshuffle), 2, 1);
static_assert(sm90::sm90_config<mc_bf16_rcr_128x256_2x1>::cluster_size == 2 &&
              sm90::sm90_config<mc_bf16_rcr_128x256_2x1>::multicast_b &&
              !sm90::sm90_config<mc_bf16_rcr_128x256_2x1>::split_k_fits);

TEST(GemmSm90Multicast, Bf16Rcr128x256SharesB) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<mc_bf16_rcr_128x256_2x1>();
}
TEST(GemmSm90Multicast, Fp16Rcr128x256SharesA) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<mc_fp16_rcr_128x256_1x2>();
}
TEST(GemmSm90Multicast, Bf16Rcr256x128SharesA) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<mc_bf16_rcr_256x128_1x2>();
}
TEST(GemmSm90Multicast, Bf16CrrColumnMajorASharedInBoxes) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<mc_bf16_crr_128x128_1x2>();
}
TEST(GemmSm90Multicast, Fp16RrrRowMajorBSharedInBoxes) {
  KDECL_SM90_REQUIRE_DEVICE();
  run_pingpong_shapes<mc_fp16_rrr_128x128_2x1_f32out>();
}
TEST(GemmSm90Multicast, PlansPairsOfBlocks) {
  KDECL_SM90_REQUIRE_DEVICE();
  gemm_problem p;
  p.sig = mc_bf16_rcr_128x256_2x1.sig;
  p.sizes(1000, 1000, 4097).leading_dims(4097, 4097, 1000);
  const auto plan = sm90::gemm<mc_bf16_rcr_128x256_2x1>::plan(p);
  EXPECT_EQ(plan.sched.splits, 1);
  EXPECT_EQ(plan.grid % 2, 0);
  EXPECT_EQ(plan.sched.units(), 4 * 4);  // 8 tile rows in 4 pairs x 4 tile columns
  EXPECT_LE(plan.grid, 2 * plan.sched.units());
}

// ---------------------------------------------------------------- transposed fragment store

// A warpgroup's m64 x N accumulator fragment (the wgmma layout, filled with v(row, column))
// stored transposed (transposed_fragment_store.cuh), then copied out: out[c * 64 + r] must be
// v(r, c). Values are small integers, exact in fp16 and bf16.
__host__ __device__ inline float fragment_value(int row, int column) { return float(row + 64 * (column % 4)); }

template <class T, int N>
__global__ void store_fragment_transposed_kernel(T* out) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // stmatrix is sm_90's; the test skips older GPUs
#else
  constexpr int ld = 72;
  __shared__ alignas(128) T tile[N * ld];
  const int t = threadIdx.x, warp = t / 32, lane = t % 32;
  float acc[N / 2];
#pragma unroll
  for (int j = 0; j < N / 8; ++j)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int e = 0; e < 2; ++e)
        acc[4 * j + 2 * h + e] = fragment_value(16 * warp + lane / 4 + 8 * h, 8 * j + 2 * (lane % 4) + e);
  sm90::store_fragment_transposed<T, N>(acc, tile, ld, t);
  __syncthreads();
  for (int i = t; i < N * 64; i += blockDim.x) out[i] = tile[(i / 64) * ld + i % 64];
#endif
}

template <class T, int N>
void check_transposed_store() {
  T* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(T) * N * 64), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0xFF, sizeof(T) * N * 64), cudaSuccess);  // NaN everywhere first
  store_fragment_transposed_kernel<T, N><<<1, 128>>>(out);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  std::vector<T> host(std::size_t(N) * 64);
  ASSERT_EQ(cudaMemcpy(host.data(), out, sizeof(T) * host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(out);
  int wrong = 0;
  for (int c = 0; c < N; ++c)
    for (int r = 0; r < 64; ++r) {
      const float got = float(host[std::size_t(c) * 64 + r]);
      if (!(got == fragment_value(r, c)) && ++wrong <= 5)
        ADD_FAILURE() << "N = " << N << ": out[" << c << "][" << r << "] = " << got << ", expected "
                      << fragment_value(r, c);
    }
  EXPECT_EQ(wrong, 0);
}

TEST(Sm90TransposedFragmentStore, EveryElementLandsTransposed) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) GTEST_SKIP() << "no CUDA device";
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  if (prop.major < 9) GTEST_SKIP() << "stmatrix needs sm_90";
  check_transposed_store<__half, 16>();
  check_transposed_store<__half, 64>();
  check_transposed_store<__nv_bfloat16, 128>();
  check_transposed_store<__nv_bfloat16, 256>();
}

}  // namespace
