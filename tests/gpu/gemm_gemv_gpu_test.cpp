// The gemv kernels (pipeline gemv, CUDA cores and mma.sync, kernels/gemm/cuda/gemv/) against the host reference: every
// registered one for the GPU present, on every M it takes (1 to tile.m), N that leave a block's
// columns partly outside C, K that end inside a 16-byte chunk, inside a step and past several
// steps, batches with gaps between matrices, beta, and column-major C. run_and_check poisons C
// first (NaN never passes) and counts bytes written outside it. Label `gpu`: skipped without a
// CUDA device.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/runtime/gemm_check.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

using testing::cuda_device;

TEST(GemvGpu, EveryKernelMatchesTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher dispatcher(*dev);
  struct nk { std::int64_t n, k; };
  // K: 1 (a chunk mostly past K), 7, 8, 257 (a step's first chunk of warp 1), 2049 and 8200
  // (whole steps, then a partial one), 20000; N: 1, 3 (a block's columns past N) up to 4099.
  constexpr nk sizes[] = {{1, 1}, {3, 7}, {130, 8}, {4099, 257}, {63, 2049}, {1000, 8200}, {17, 20000}};
  int kernels = 0, checked = 0;
  for (const auto& kernel : registry::global().gemm_kernels()) {
    const gemm_key& key = kernel->key();
    if (kernel->arch() != dev->arch || key.algo.pipe != pipeline::gemv) continue;
    ++kernels;
    int seed = 0;
    // 9 and 13: mma.sync lanes whose row g + 8 lies past M for some g and not others.
    std::vector<std::int64_t> rows = {1, 2, 3, 5, 7, 8, 9, 13, key.algo.tile.m};
    rows.erase(std::remove_if(rows.begin(), rows.end(), [&](std::int64_t m) { return m > key.algo.tile.m; }), rows.end());
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    for (const std::int64_t m : rows) {
      for (const auto& s : sizes) {
        const std::int64_t batch = seed % 3 == 2 ? 3 : 1;
        gemm_problem p;
        p.sizes(m, s.n, s.k).batched(batch);
        p.sig = key.sig;
        // Rows of A and columns of B padded to 16 bytes (the kernels' chunks), C packed (any
        // alignment); batched matrices 40 elements apart beyond their extent.
        const auto padded = [](std::int64_t v) { return (v + 7) / 8 * 8; };
        const std::int64_t lda = padded(s.k), ldb = padded(s.k) + 8;
        const std::int64_t ldc = key.sig.lay.c == layout::row ? s.n : m;
        p.leading_dims(lda, ldb, ldc);
        if (batch > 1) p.batch_strides(m * lda + 40 * 8, s.n * ldb + 40 * 8, p.rows_c() * ldc + 40);
        const float beta = seed % 2 == 1 ? 0.5f : 0.0f;
        if (gemm_rejection(*kernel, p.normalized(), nullptr)) {
          ADD_FAILURE() << kernel->name() << " refused " << m << "x" << s.n << "x" << s.k << " b" << batch;
          ++seed;
          continue;
        }
        const auto r = run_and_check(dispatcher, p, 1.25f, beta, kernel->name(), 500 + seed++);
        EXPECT_TRUE(r.passed) << kernel->name() << " " << m << "x" << s.n << "x" << s.k << " b" << batch
                              << " beta " << beta << ": error " << r.error << " > " << r.tolerance << ", "
                              << r.outside_writes << " bytes written outside C";
        ++checked;
      }
    }
  }
  std::printf("%d gemv kernels for %s: %d runs checked\n", kernels, std::string(to_string(dev->arch)).c_str(),
              checked);
  if (kernels == 0) GTEST_SKIP() << "no gemv kernel registered for this GPU's arch";
  EXPECT_GT(checked, kernels);
}

// Where a problem has more rows than a kernel's tile.m, the kernel says so (and the dispatcher
// takes another); misaligned rows of A or B are refused by the alignment rule.
TEST(GemvGpu, RefusalsNameTheRule) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  for (const auto& kernel : registry::global().gemm_kernels()) {
    const gemm_key& key = kernel->key();
    if (kernel->arch() != dev->arch || key.algo.pipe != pipeline::gemv) continue;
    gemm_problem p;
    p.sizes(key.algo.tile.m + 1, 64, 64);
    p.sig = key.sig;
    const auto why = gemm_rejection(*kernel, p.normalized(), nullptr);
    ASSERT_TRUE(why.has_value()) << kernel->name();
    EXPECT_NE(why->find("more than the kernel's tile.m"), std::string::npos) << *why;
    gemm_problem odd;
    odd.sizes(1, 64, 63);  // lda = ldb = 63 elements: 126-byte rows
    odd.sig = key.sig;
    EXPECT_TRUE(gemm_rejection(*kernel, odd.normalized(), nullptr).has_value()) << kernel->name();
    return;
  }
  GTEST_SKIP() << "no gemv kernel registered for this GPU's arch";
}

}  // namespace
}  // namespace kdecl
