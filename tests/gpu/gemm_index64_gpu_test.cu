// A problem with more than 2^31 elements in one operand: bf16 rcr, M = 65536,
// K = 32800, N = 256 (A holds 2,149,580,800 elements, 4.3 GB). The dispatcher must
// pick a 64-bit-offset kernel; it runs, and a sample of C's rows -- the first, the
// last, those around element 2^31 of A, and random ones -- is checked against a
// host reference computed for those rows only. The cp_async 64-bit kernels (the
// sm_80 path and the one-element width) run the same problem by name.
// Label `gpu`: skipped without a CUDA device or 4.6 GB of free device memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <thread>
#include <vector>

#include <cuda_runtime.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/numeric/bfloat16.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

constexpr std::int64_t M = 65536, N = 256, K = 32800;

// Element i of an operand: a multiple of 1/16 in [-0.5, 0.5], exact in bf16, from a hash of i.
__host__ __device__ inline float value_at(std::uint64_t i, std::uint64_t salt) {
  std::uint64_t x = (i + salt) * 0x9E3779B97F4A7C15ull;
  x ^= x >> 29;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 32;
  return float(int(x % 17) - 8) / 16.0f;
}

__global__ void fill(std::uint16_t* out, std::uint64_t count, std::uint64_t salt) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const float v = value_at(i, salt);
    out[i] = static_cast<std::uint16_t>(__float_as_uint(v) >> 16);  // exact: v has <= 8 significant bits
  }
}

struct device_memory {
  void* ptr = nullptr;
  explicit device_memory(std::size_t bytes) {
    if (cudaMalloc(&ptr, bytes) != cudaSuccess) ptr = nullptr;
  }
  ~device_memory() { cudaFree(ptr); }
};

using testing::cuda_device;

// Rows to check: first, last, around the row where A's offsets pass 2^31, random.
std::vector<std::int64_t> sample_rows() {
  std::vector<std::int64_t> rows = {0, 1, M - 2, M - 1};
  const std::int64_t crossing = ((std::int64_t{1} << 31) - 1) / K;  // A's element 2^31 lies in this row
  for (std::int64_t r = crossing - 3; r <= crossing + 3; ++r) rows.push_back(r);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 40; ++i) rows.push_back(std::int64_t(rng() % M));
  std::sort(rows.begin(), rows.end());
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// Runs `kernel` on the problem and checks the sampled rows; C is poisoned first.
void run_and_check_rows(const gemm_instance& kernel, const gemm_problem& p, const gemm_args& args, void* c) {
  SCOPED_TRACE(kernel.name());
  ASSERT_EQ(cudaMemset(c, 0xFF, std::size_t(M * N * 2)), cudaSuccess);
  const auto st = kernel.run(p, args, nullptr);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const auto rows = sample_rows();
  std::vector<std::uint16_t> got(rows.size() * N);
  for (std::size_t r = 0; r < rows.size(); ++r)
    ASSERT_EQ(cudaMemcpy(got.data() + r * N, static_cast<std::uint16_t*>(c) + rows[r] * N, N * 2,
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
  // Reference for the sampled rows, in double: C(i, j) = sum_k A(i, k) B(k, j), B column-major (ldb = K).
  std::vector<double> ref(rows.size() * N);
  std::vector<std::thread> pool;
  const unsigned workers = std::max(1u, std::min(32u, std::thread::hardware_concurrency()));
  for (unsigned t = 0; t < workers; ++t)
    pool.emplace_back([&, t] {
      std::vector<double> a(K);
      for (std::size_t r = t; r < rows.size(); r += workers) {
        for (std::int64_t k = 0; k < K; ++k) a[k] = value_at(std::uint64_t(rows[r] * K + k), 1);
        for (std::int64_t j = 0; j < N; ++j) {
          double acc = 0;
          for (std::int64_t k = 0; k < K; ++k) acc += a[k] * value_at(std::uint64_t(j * K + k), 2);
          ref[r * N + j] = acc;
        }
      }
    });
  for (auto& th : pool) th.join();

  double err2 = 0, ref2 = 0;
  std::int64_t nans = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double o = double(float(bfloat16::from_bits(got[i])));
    if (std::isnan(o)) ++nans;
    err2 += (o - ref[i]) * (o - ref[i]);
    ref2 += ref[i] * ref[i];
  }
  const double error = std::sqrt(err2 / ref2);
  std::printf("%s: %zu sampled rows, relative error %.3g, %lld NaN\n", kernel.name().c_str(), rows.size(), error,
              static_cast<long long>(nans));
  EXPECT_EQ(nans, 0);
  EXPECT_LT(error, 1e-2);  // NaN fails this too
}

TEST(Index64Gpu, OperandOfMoreThan2To31Elements) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  std::size_t free_bytes = 0, total = 0;
  cudaMemGetInfo(&free_bytes, &total);
  const std::size_t a_bytes = std::size_t(M * K * 2), b_bytes = std::size_t(N * K * 2), c_bytes = std::size_t(M * N * 2);
  if (free_bytes < a_bytes + b_bytes + c_bytes + (std::size_t{256} << 20))
    GTEST_SKIP() << "needs " << (a_bytes + b_bytes + c_bytes) / 1e9 << " GB of device memory, " << free_bytes / 1e9
                 << " GB free";
  ASSERT_GT(M * K, (std::int64_t{1} << 31) - 1);

  device_memory a(a_bytes + 2), b(b_bytes), c(c_bytes);
  ASSERT_TRUE(a.ptr && b.ptr && c.ptr);
  fill<<<1024, 256>>>(static_cast<std::uint16_t*>(a.ptr), std::uint64_t(M * K), 1);
  fill<<<1024, 256>>>(static_cast<std::uint16_t*>(b.ptr), std::uint64_t(N * K), 2);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);

  const auto p = gemm_problem{}.sizes(M, N, K).dtype(dtype::bf16).layout(rcr).normalized();
  const gemm_args args{a.ptr, b.ptr, c.ptr};
  gemm_dispatcher d(*dev);
  const auto sel = d.select(p, &args, /*explain_all=*/true);
  ASSERT_TRUE(sel) << sel.explain();
  EXPECT_EQ(sel.kernel->key().algo.index_bits, 64) << sel.kernel->name();
  bool refused_32bit = false;
  for (const auto& r : sel.rejected) refused_32bit |= r.reason.find("32-bit indexing") != std::string::npos;
  EXPECT_TRUE(refused_32bit) << "32-bit kernels must refuse this problem";
  run_and_check_rows(*sel.kernel, p, args, c.ptr);

  // The cp_async 64-bit kernels by name: the sm_80 path (its SASS runs here too) and the
  // one-element width (register-staged loads), each on the same data.
  for (const auto& k : registry::global().gemm_kernels()) {
    const auto& key = k->key();
    if (key.algo.pipe != pipeline::cp_async || key.algo.index_bits != 64 || !(key.sig == p.sig)) continue;
    if (key.algo.arch != arch_id::sm_80 && key.algo.arch != dev->arch) continue;
    if (gemm_rejection(*k, p, &args)) continue;
    run_and_check_rows(*k, p, args, c.ptr);
  }
}

}  // namespace
}  // namespace kdecl
