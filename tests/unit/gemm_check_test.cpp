// The check behind `kdecl run`: its plan (memory, every row or a sample), the
// row-wise reference it compares with, and that a sampled check still fails
// a wrong result.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/gemm_reference.hpp"
#include "kdecl/runtime/gemm_check.hpp"

namespace kdecl {
namespace {

constexpr std::size_t plenty = std::size_t{1} << 40;

gemm_problem fp32_problem(std::int64_t m, std::int64_t n, std::int64_t k) {
  return gemm_problem{}.sizes(m, n, k).dtype(dtype::fp32).layout(rcr);
}

TEST(GemmCheckPlan, SmallProblemsCheckEveryRow) {
  auto plan = plan_check(fp32_problem(100, 64, 70).batched(3), device::host(), 0, 0.0f, check_mode::automatic, plenty);
  EXPECT_FALSE(plan.sampled);
  EXPECT_TRUE(plan.rows.empty());
  EXPECT_EQ(plan.total_rows, 300);
  EXPECT_EQ(plan.rows_checked(), 300);
  EXPECT_TRUE(plan.b_in_double);
  EXPECT_NE(plan.why.find("every row"), std::string::npos) << plan.why;
  // Host backend: the operands are host memory, nothing on a device.
  EXPECT_EQ(plan.device_bytes, 0u);
  EXPECT_GE(plan.host_bytes, std::size_t(4 * 3 * (100 * 70 + 70 * 64 + 100 * 64)));
}

TEST(GemmCheckPlan, LargeProblemsSampleRowsIncludingTheEdges) {
  const auto p = fp32_problem(std::int64_t{1} << 20, 4096, 4096).batched(2);
  auto plan = plan_check(p, device::host(), 0, 0.0f, check_mode::automatic, plenty, 5);
  ASSERT_TRUE(plan.sampled);
  EXPECT_NE(plan.why.find("a sample of rows"), std::string::npos) << plan.why;
  ASSERT_GE(plan.rows.size(), 2u);
  EXPECT_LE(plan.rows.size(), 256u);
  EXPECT_EQ(plan.rows.front(), 0);
  EXPECT_EQ(plan.rows.back(), p.batch * p.m - 1);
  for (std::size_t i = 1; i < plan.rows.size(); ++i) EXPECT_LT(plan.rows[i - 1], plan.rows[i]);
  EXPECT_LT(plan.reference_flops, 2.0 * double(p.batch * p.m) * double(p.n) * double(p.k));
  // The sample depends on the seed, and only on it.
  EXPECT_EQ(plan.rows, plan_check(p, device::host(), 0, 0.0f, check_mode::automatic, plenty, 5).rows);
  EXPECT_NE(plan.rows, plan_check(p, device::host(), 0, 0.0f, check_mode::automatic, plenty, 6).rows);
}

TEST(GemmCheckPlan, ModesForceTheChoice) {
  EXPECT_TRUE(plan_check(fp32_problem(4000, 64, 64), device::host(), 0, 0.0f, check_mode::sampled, plenty).sampled);
  EXPECT_FALSE(plan_check(fp32_problem(1 << 16, 4096, 4096), device::host(), 0, 0.0f, check_mode::full, plenty).sampled);
  // A sample as large as the problem is every row.
  EXPECT_FALSE(plan_check(fp32_problem(3, 64, 64), device::host(), 0, 0.0f, check_mode::sampled, plenty).sampled);
}

TEST(GemmCheckPlan, SamplesWhenTheFullReferenceDoesNotFit) {
  // Every row is cheap enough here, but B in double needs 8 * n * k bytes more than is left.
  const auto p = fp32_problem(300, 1 << 20, 16);
  const auto roomy = plan_check(p, device::host(), 0, 0.0f, check_mode::automatic, plenty);
  ASSERT_FALSE(roomy.sampled);
  const auto tight =
      plan_check(p, device::host(), 0, 0.0f, check_mode::automatic, roomy.host_bytes - 8 * (std::size_t(1) << 24) + (std::size_t{64} << 20));
  EXPECT_TRUE(tight.sampled) << tight.why;
  EXPECT_FALSE(tight.b_in_double);
}

TEST(GemmCheckPlan, DeviceRunsCountHostCopiesAndDeviceBuffers) {
  const device gpu{arch_id::sm_90, 0, "test GPU"};
  const auto p = fp32_problem(1000, 2000, 300).multi_d(elementwise::gelu, 2);
  const std::size_t a = 4 * 1000 * 300, b = 4 * 300 * 2000, c = 4 * 1000 * 2000;
  auto plan = plan_check(p, gpu, 12345, 0.0f, check_mode::automatic, plenty);
  EXPECT_EQ(plan.device_bytes, a + b + 3 * c + 12345);  // A, B, C, two D tensors, the workspace
  EXPECT_GE(plan.host_bytes, a + b + 3 * c);            // host copies of the inputs; the output reuses C's
  auto with_beta = plan_check(p, gpu, 12345, 0.5f, check_mode::automatic, plenty);
  EXPECT_EQ(with_beta.host_bytes, plan.host_bytes + c);  // C before the run is kept for the reference
}

// The row-wise reference equals the matrix reference, and sees what is wrong.
TEST(RowReference, AgreesWithTheFullReferenceAndFindsErrors) {
  gemm_problem p = gemm_problem{}.sizes(37, 29, 41).batched(3).dtype(dtype::fp16).layout(crr);  // C row-major
  p.leading_dims(45, 33, 31).batch_strides(45 * 41 + 7, 33 * 41 + 2, 37 * 31 + 5).multi_d(elementwise::gelu, 2);
  ASSERT_FALSE(p.validate()) << *p.validate();
  p = p.normalized();
  auto span = [&](std::int64_t stride, std::int64_t rows, std::int64_t ld) {
    return std::size_t((p.batch - 1) * stride + rows * ld);
  };
  std::vector<half> a(span(p.stride_a, p.rows_a(), p.lda)), b(span(p.stride_b, p.rows_b(), p.ldb)),
      c(span(p.stride_c, p.rows_c(), p.ldc)), d0(span(p.stride_d, p.rows_c(), p.ldd)), d1(d0.size());
  numeric::fill_uniform(a.data(), dtype::fp16, a.size(), 1);
  numeric::fill_uniform(b.data(), dtype::fp16, b.size(), 2);
  numeric::fill_uniform(c.data(), dtype::fp16, c.size(), 3);
  numeric::fill_uniform(d0.data(), dtype::fp16, d0.size(), 4);
  numeric::fill_uniform(d1.data(), dtype::fp16, d1.size(), 5);
  gemm_args args{a.data(), b.data(), c.data(), 1.25f, 0.5f};
  args.d = {d0.data(), d1.data()};
  const std::vector<double> ref = reference::gemm(p, args);

  // The output: the reference rounded to fp16, written where C lives.
  std::vector<half> out(c.size());
  for (std::int64_t bb = 0; bb < p.batch; ++bb)
    for (std::int64_t i = 0; i < p.m; ++i)
      for (std::int64_t j = 0; j < p.n; ++j)
        out[std::size_t(bb * p.stride_c + i * p.ldc + j)] = half(float(ref[std::size_t((bb * p.m + i) * p.n + j)]));
  const double full = reference::relative_error(p, out.data(), ref);
  for (bool b_in_double : {false, true}) {
    EXPECT_NEAR(reference::relative_error_over_rows(p, args, out.data(), {}, b_in_double), full, 1e-12);
    const std::vector<std::int64_t> rows{0, 5, 40, 110};
    const double sampled = reference::relative_error_over_rows(p, args, out.data(), rows, b_in_double);
    EXPECT_GT(sampled, 0.0);
    EXPECT_LT(sampled, 1e-3);
  }
  EXPECT_FALSE(reference::any_nan(p, out.data()));

  // A wrong element in a checked row fails; a NaN anywhere is found by the scan.
  auto wrong = out;
  wrong[std::size_t(1 * p.stride_c + 3 * p.ldc + 10)] = half(100.0f);  // batch 1, row 3 = flat row 40
  const std::vector<std::int64_t> rows{0, 40};
  EXPECT_GT(reference::relative_error_over_rows(p, args, wrong.data(), rows, false), 0.1);
  auto unwritten = out;
  unwritten[std::size_t(2 * p.stride_c + 7 * p.ldc + 20)] = half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_LT(reference::relative_error_over_rows(p, args, unwritten.data(), rows, false), 1e-3);  // not in the sample
  EXPECT_TRUE(reference::any_nan(p, unwritten.data()));
}

// A tf32 kernel's error on a long, cancelling dot product (a 1x1 C) comes from
// the rounding of its inputs; the reference rounds them as the kernel does
// (truncation for wgmma reading fp32 from shared memory, round-to-nearest
// after cvt.rna), so that the check measures the kernel, not tf32 itself.
TEST(GemmCheckReference, Tf32InputsAreRoundedAsTheKernelRoundsThem) {
  gemm_problem p = gemm_problem{}.sizes(1, 1, 232).dtype(dtype::fp32).layout(rcr);
  p.sig.compute = dtype::tf32;
  p = p.normalized();
  std::vector<float> a(232), b(232);
  numeric::fill_uniform(a.data(), dtype::fp32, a.size(), 11);
  numeric::fill_uniform(b.data(), dtype::fp32, b.size(), 12);
  gemm_args args{a.data(), b.data(), nullptr, 1.0f, 0.0f};
  for (auto [round, rounding] : {std::pair{&truncate_to_tf32, reference::tf32_inputs::truncate},
                                 std::pair{&round_to_tf32, reference::tf32_inputs::round_nearest}}) {
    // What a kernel with this rounding computes (fp32 accumulation, in order).
    float dot = 0;
    for (std::size_t i = 0; i < a.size(); ++i) dot += (*round)(a[i]) * (*round)(b[i]);
    const float out = dot;
    EXPECT_LT(reference::relative_error_over_rows(p, args, &out, {}, false, rounding), 1e-5);
    // Against unrounded inputs the same result is off by the input rounding alone.
    EXPECT_GT(reference::relative_error_over_rows(p, args, &out, {}, false, reference::tf32_inputs::exact), 1e-5);
  }
  EXPECT_EQ(truncate_to_tf32(1.0f + 0x1.ffcp-11f), 1.0f);               // low bits dropped
  EXPECT_EQ(round_to_tf32(1.0f + 0x1.ffcp-11f), 1.0f + 0x1p-10f);        // rounded up
  EXPECT_EQ(truncate_to_tf32(-1.5f), -1.5f);
}

}  // namespace
}  // namespace kdecl
