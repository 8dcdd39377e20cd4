// Host check of kdecl::kernels::cuda::fast_erf (the erf behind GELU in the CUDA
// epilogues, common/elementwise.cuh) against std::erf in double. On the host the
// 2^x inside is exp2f; the device's ex2.approx is covered by GemmSm90.FastErfOnDevice.
// Builds with a plain C++ compiler (no CUDA needed), e.g.
//   g++ -std=c++20 -O2 -Iinclude tests/unit/fast_erf_test.cpp -lgtest -lgtest_main -pthread
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"

namespace {

using kdecl::kernels::cuda::fast_erf;

// Largest |fast_erf(y) - erf(y)| over n + 1 evenly spaced y in [lo, hi].
double max_abs_error(double lo, double hi, int n, double* worst_y) {
  double worst = 0;
  for (int i = 0; i <= n; ++i) {
    const float y = static_cast<float>(lo + (hi - lo) * i / n);
    const double e = std::fabs(static_cast<double>(fast_erf(y)) - std::erf(static_cast<double>(y)));
    if (!(e <= worst)) {  // also catches NaN
      worst = e;
      *worst_y = y;
    }
  }
  return worst;
}

TEST(FastErf, AbsoluteErrorOverMinusTenToTen) {
  double y = 0;
  const double err = max_abs_error(-10.0, 10.0, 20'000'000, &y);
  std::printf("fast_erf: max |error| over [-10, 10] = %.3g at y = %.6g\n", err, y);
  EXPECT_LT(err, 1e-6);
}

TEST(FastErf, EveryFloatInTheCurvedPart) {
  // Every 16th float in [0, 4.25] (tiny ones included; the polynomial and the start of
  // the clamp), both signs. Stride 1 (every float, 25 s) found 1.61e-7.
  double worst = 0;
  const std::uint32_t last = std::bit_cast<std::uint32_t>(4.25f);
  for (std::uint32_t bits = 0; bits <= last; bits += 16) {
    const float y = std::bit_cast<float>(bits);
    const double e = std::fabs(static_cast<double>(fast_erf(y)) - std::erf(static_cast<double>(y)));
    const double em = std::fabs(static_cast<double>(fast_erf(-y)) + std::erf(static_cast<double>(y)));
    ASSERT_FALSE(std::isnan(e) || std::isnan(em)) << y;
    worst = std::fmax(worst, std::fmax(e, em));
  }
  std::printf("fast_erf: max |error| over the floats in [-4.25, 4.25] = %.3g\n", worst);
  EXPECT_LT(worst, 1e-6);
}

TEST(FastErf, OddZeroAndSaturation) {
  EXPECT_EQ(fast_erf(0.0f), 0.0f);
  for (float y : {1e-30f, 1e-6f, 0.3f, 1.0f, 2.5f, 7.0f}) EXPECT_EQ(fast_erf(-y), -fast_erf(y)) << y;
  EXPECT_NEAR(fast_erf(INFINITY), 1.0f, 1e-7f);
  EXPECT_NEAR(fast_erf(-INFINITY), -1.0f, 1e-7f);
  EXPECT_LE(fast_erf(100.0f), 1.0f);
}

TEST(FastErf, GeluBuiltOnItMatchesTheErfForm) {
  // The GELU the epilogues compute, 0.5x(1 + erf(x/sqrt2)), against the double formula:
  // the error is x/2 times the erf error, here scaled by max(1, |x|).
  double worst = 0;
  for (int i = 0; i <= 2'000'000; ++i) {
    const float x = -20.0f + 40.0f * static_cast<float>(i) / 2'000'000.0f;
    const float g = 0.5f * x * (1.0f + fast_erf(x * 0.70710678118654752f));
    const double ref = 0.5 * x * (1.0 + std::erf(static_cast<double>(x) / std::sqrt(2.0)));
    worst = std::fmax(worst, std::fabs(g - ref) / std::fmax(1.0, std::fabs(static_cast<double>(x))));
  }
  std::printf("gelu via fast_erf: max |error| / max(1, |x|) over [-20, 20] = %.3g\n", worst);
  EXPECT_LT(worst, 1e-6);
}

}  // namespace
