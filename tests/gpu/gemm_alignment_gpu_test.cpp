// A sample of the selection property test's random problems (odd leading
// dimensions, pointers offset into their allocations, odd batch strides, every
// signature shipped for the GPU present) run on the GPU against the host
// reference: outputs poisoned first, NaN never passes, and nothing outside C
// may change. Label `gpu`: skipped where no CUDA device exists.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include <cuda_runtime.h>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/runtime/gemm_check.hpp"
#include "../unit/random_gemm_problem.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

using testing::draw_problem;
using testing::drawn_problem;
using testing::signatures_of;

using testing::cuda_device;

void expect_runs_correctly(const gemm_dispatcher& d, const drawn_problem& dp, float alpha, float beta,
                           std::uint64_t seed, std::map<std::string, int>* kernels = nullptr,
                           const std::string& kernel = "") {
  const gemm_check_options o{dp.offset_a, dp.offset_b, dp.offset_c, dp.offset_d};
  try {
    const auto r = run_and_check(d, dp.problem, alpha, beta, kernel, seed, o);
    EXPECT_TRUE(r.passed) << dp.describe() << " beta=" << beta << " " << r.kernel << ": error " << r.error
                          << " (tolerance " << r.tolerance << "), " << r.outside_writes
                          << " bytes written outside C";
    if (kernels) ++(*kernels)[r.kernel];
  } catch (const std::exception& e) {
    ADD_FAILURE() << dp.describe() << ": " << e.what();
  }
}

// Random problems of every shipped signature; sizes up to 700 keep the reference cheap.
TEST(AlignmentGpu, RandomProblemsMatchTheReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  const auto sigs = signatures_of(dev->arch);
  ASSERT_FALSE(sigs.empty());
  gemm_dispatcher d(*dev);
  std::mt19937_64 rng(31);
  std::map<std::string, int> kernels;
  const int count = 12 * int(sigs.size());
  for (int i = 0; i < count; ++i) {
    const drawn_problem dp = draw_problem(rng, sigs[std::size_t(i) % sigs.size()], 700, 700);
    const float beta = dp.problem.sig.acc == dtype::int32 || i % 3 == 0 ? 0.0f : 0.75f;
    expect_runs_correctly(d, dp, 1.25f, beta, 700 + i, &kernels);
  }
  std::printf("%d random problems over %zu signatures ran on %zu distinct kernels\n", count, sigs.size(),
              kernels.size());
}

// Every shipped kernel for this GPU whose access width is below 16 bytes (the new
// narrow and register-staged widths), each on a misaligned problem it is chosen for.
TEST(AlignmentGpu, EveryNarrowKernelRunsMisalignedData) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher d(*dev);
  int checked = 0;
  for (const auto& k : registry::global().gemm_kernels()) {
    if (k->arch() != dev->arch || k->key().algo.vector_bytes >= 16 || k->key().algo.index_bits != 32) continue;
    const auto& sig = k->key().sig;
    const int eb = std::max(1, bits_of(sig.a) / 8);
    // Leading dimensions and pointers aligned to the kernel's width, and (by an odd
    // number of widths) to nothing wider.
    const std::int64_t per = std::max(1, k->key().algo.vector_bytes / eb), offset = per;
    const auto ld = [&](std::int64_t cols) { return ((cols + per - 1) / per | 1) * per + 2 * per; };
    for (auto [m, n, kk] : {std::array<std::int64_t, 3>{129, 77, 301}, {1, 200, 97}, {333, 5, 40}}) {
      drawn_problem dp;
      dp.problem.sig = sig;
      dp.problem.sizes(m, n, kk).batched(m == 1 ? 3 : 1);
      dp.problem.lda = ld(dp.problem.cols_a());
      dp.problem.ldb = sig.variant == gemm_variant::preshuffle ? 0 : ld(dp.problem.cols_b());
      dp.problem.ldc = dp.problem.cols_c() + 1;
      if (sig.variant == gemm_variant::multi_d) dp.problem.ldd = dp.problem.cols_c() + 3;
      dp.offset_a = offset;
      dp.offset_b = sig.variant == gemm_variant::preshuffle ? 0 : offset;
      dp.offset_c = 1;
      dp.offset_d = sig.variant == gemm_variant::multi_d ? 2 : 0;
      expect_runs_correctly(d, dp, 1.0f, sig.acc == dtype::int32 ? 0.0f : 0.5f, 900 + checked, nullptr, k->name());
      ++checked;
    }
  }
  std::printf("%d runs of narrow-width kernels\n", checked);
  EXPECT_GT(checked, 0);
}

// The shape class: bf16 rcr with an odd vocabulary N (ldc = 50257). The odd row length
// (and, at M = 3, a C pointer 2 bytes off) must not push the problem off the TMA kernels on sm_90:
// the best-ranked one runs it correctly, as does the dispatcher's choice (which the learned model
// may make a cp_async kernel at small M, where the H200 data measure one 2-6% faster).
TEST(AlignmentGpu, OddVocabularyRows) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher d(*dev);
  for (std::int64_t m : {3, 200}) {
    drawn_problem dp;
    dp.problem.sizes(m, 50257, 256).dtype(dtype::bf16).layout(rcr);
    dp.offset_c = m == 3 ? 1 : 0;
    auto sel = d.select(dp.problem);
    ASSERT_TRUE(sel) << sel.explain();
    expect_runs_correctly(d, dp, 1.0f, 0.5f, 77 + m);
    if (dev->arch != arch_id::sm_90) continue;
    std::string tma;
    for (const auto& [kernel, estimate] : d.ranked(dp.problem))
      if (kernel->key().algo.pipe == pipeline::tma_wgmma) {
        tma = kernel->name();
        break;
      }
    ASSERT_FALSE(tma.empty()) << "m = " << m << ": no tma_wgmma kernel is eligible";
    expect_runs_correctly(d, dp, 1.0f, 0.5f, 78 + m, nullptr, tma);
  }
}

// Sanity timing (not a benchmark): a 4096^3 bf16 problem with C aligned, with ldc =
// 4097 (rows 2-byte aligned) and with C offset by one element, on the kernel the
// dispatcher picks for the aligned one. The misaligned epilogue must stay close.
TEST(AlignmentGpu, MisalignedCCostsLittle) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher d(*dev);
  const std::int64_t n = 4096;
  const auto base = gemm_problem{}.sizes(n, n, n).dtype(dtype::bf16).layout(rcr);
  auto sel = d.select(base);
  ASSERT_TRUE(sel) << sel.explain();
  buffer a(*dev, std::size_t(n * n * 2)), b(*dev, std::size_t(n * n * 2)), c(*dev, std::size_t(n * (n + 1) * 2 + 64));
  a.fill_bytes(0x3c);  // small bf16 values
  b.fill_bytes(0x3c);
  auto time = [&](std::int64_t ldc, std::size_t c_offset_bytes) {
    auto p = base;
    p.ldc = ldc;
    gemm_args args{a.data(), b.data(), static_cast<unsigned char*>(c.data()) + c_offset_bytes};
    EXPECT_FALSE(gemm_rejection(*sel.kernel, p.normalized(), &args).has_value());
    for (int w = 0; w < 3; ++w) EXPECT_TRUE(sel.kernel->run(p.normalized(), args, nullptr).is_ok());
    cudaEvent_t e0, e1;
    cudaEventCreate(&e0);
    cudaEventCreate(&e1);
    constexpr int reps = 20;
    cudaEventRecord(e0);
    for (int r = 0; r < reps; ++r) EXPECT_TRUE(sel.kernel->run(p.normalized(), args, nullptr).is_ok());
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms = 0;
    cudaEventElapsedTime(&ms, e0, e1);
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return ms / reps;
  };
  const double aligned = time(n, 0), odd_ldc = time(n + 1, 0), offset = time(n, 2);
  std::printf("%s 4096^3 bf16: aligned C %.4f ms, ldc 4097 %.4f ms (x%.3f), C + 2 bytes %.4f ms (x%.3f)\n",
              sel.kernel->name().c_str(), aligned, odd_ldc, odd_ldc / aligned, offset, offset / aligned);
  EXPECT_LT(odd_ldc / aligned, 1.25);
  EXPECT_LT(offset / aligned, 1.25);
}

}  // namespace
}  // namespace kdecl
