// Every shipped kernel for the GPU present, on random data against the host
// reference: odd sizes in each dimension, a large size, batches, alpha/beta.
// Label `gpu`: skipped (reported as skipped) where no CUDA device exists.
#include <gtest/gtest.h>

#include <array>

#include "kdecl/gemm/gemm_dispatcher.hpp"
#include "kdecl/runtime/gemm_check.hpp"
#include "cuda_device.hpp"

namespace kdecl {
namespace {

struct shape { std::int64_t m, n, k, batch; };

// Sizes 1, 7, 63, 129, 1000 and 4097 each appear in every dimension; the
// reference stays cheap by keeping the other two dimensions moderate.
constexpr std::array<shape, 9> shapes{{{1, 7, 63, 1},     {7, 63, 129, 2},   {63, 129, 1, 1},
                                       {129, 1, 7, 3},    {1000, 129, 63, 1}, {63, 1000, 129, 1},
                                       {129, 63, 1000, 1}, {4097, 64, 128, 1}, {64, 4097, 200, 1}}};

using testing::cuda_device;

TEST(ShippedGpuInstances, MatchTheHostReference) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher dispatcher(*dev);
  int checked = 0, refused = 0, kernels = 0;
  for (const auto& k : registry::global().gemm_kernels()) {
    if (k->arch() != dev->arch) continue;
    ++kernels;
    int seed = 0;
    for (const auto& s : shapes) {
      gemm_problem p;
      p.sizes(s.m, s.n, s.k).batched(s.batch);
      p.sig = k->key().sig;
      // Odd sizes with leading dimensions padded to 16 bytes, as allocators give them:
      // the kernels' access widths then fit, and the padding itself is never read as data.
      const auto padded = [&](std::int64_t cols, dtype d) {
        const std::int64_t per16 = std::max(1, 16 / std::max(1, bits_of(d) / 8));
        return (cols + per16 - 1) / per16 * per16;
      };
      p.leading_dims(padded(p.cols_a(), p.sig.a), padded(p.cols_b(), p.sig.b), padded(p.cols_c(), p.sig.c));
      const float beta = (seed % 2 == 0 || k->key().sig.acc == dtype::int32) ? 0.0f : 0.75f;
      if (gemm_rejection(*k, p.normalized(), nullptr)) { ++refused; ++seed; continue; }
      try {
        auto r = run_and_check(dispatcher, p, 1.25f, beta, k->name(), 100 + seed++);
        EXPECT_TRUE(r.passed) << k->name() << " " << s.m << "x" << s.n << "x" << s.k << " b" << s.batch
                              << ": error " << r.error << " > " << r.tolerance;
        ++checked;
      } catch (const std::exception& e) {
        ADD_FAILURE() << k->name() << " " << s.m << "x" << s.n << "x" << s.k << ": " << e.what();
      }
    }
  }
  std::printf("%d kernels for %s: %d runs checked, %d (kernel, shape) pairs refused at selection\n", kernels,
              std::string(to_string(dev->arch)).c_str(), checked, refused);
  EXPECT_GT(kernels, 0);
  EXPECT_GT(checked, kernels);
}

// The dispatcher's own choice for common problems, including misaligned leading dimensions
// (served by the narrower-width instances: every alignment the dtype allows has one).
TEST(ShippedGpuInstances, DispatcherChoicesAreCorrect) {
  auto dev = cuda_device();
  if (!dev) GTEST_SKIP() << "no CUDA device";
  gemm_dispatcher dispatcher(*dev);
  struct c { std::int64_t m, n, k; dtype d; gemm_layout l; dtype compute; };
  const c cases[] = {{4096, 4096, 4096, dtype::bf16, rcr, dtype::bf16},
                     {16, 4096, 4096, dtype::fp16, rcr, dtype::fp16},
                     {1000, 1000, 84, dtype::fp16, rcr, dtype::fp16},  // lda = 168 bytes: 8-byte aligned only
                     {1000, 999, 77, dtype::fp16, rcr, dtype::fp16},   // 2-byte aligned rows
                     {513, 257, 130, dtype::fp32, rcr, dtype::tf32},
                     {300, 200, 100, dtype::fp32, ccr, dtype::fp32},
                     {129, 4096, 64, dtype::bf16, rcr, dtype::bf16},
                     {4096, 129, 64, dtype::bf16, crr, dtype::bf16}};  // lda = M = 4096 ok, ldb = N = 129
  for (const auto& t : cases) {
    auto p = gemm_problem{}.sizes(t.m, t.n, t.k).dtype(t.d).layout(t.l).compute(t.compute);
    auto sel = dispatcher.select(p);
    ASSERT_TRUE(sel) << sel.explain();
    auto r = run_and_check(dispatcher, p, 1.0f, 0.0f);
    EXPECT_TRUE(r.passed) << r.kernel << ": error " << r.error << ", " << r.outside_writes << " bytes written outside C";
  }
}

}  // namespace
}  // namespace kdecl
