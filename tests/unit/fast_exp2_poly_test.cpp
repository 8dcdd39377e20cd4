// Host check of kdecl::kernels::cuda::exp2_poly (the exponential the soft-capped sm_90
// softmax computes on the FMA pipes for part of its elements) against std::exp2 in
// double: the polynomial's relative error, exact zeros below 2^-126 and for -inf,
// NaN kept. The host path takes the floor with std::floor; the device's rounded-add
// floor and exponent bits are checked by FmhaSoftmaxGpu.Exp2PolyOnDevice.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "kdecl/kernels/cuda/fast_exp2_poly.cuh"

namespace {

using kdecl::kernels::cuda::exp2_poly;

TEST(FastExp2Poly, PolynomialIsWithinItsBoundOverTheSoftmaxRange) {
  double worst = 0, worst_x = 0;
  constexpr int n = 1 << 20;
  for (int i = 0; i <= n; ++i) {
    const float x = -126.0f * static_cast<float>(i) / n;  // softmax arguments: x - max <= 0
    const double e = std::fabs(double(exp2_poly(x)) / std::exp2(double(x)) - 1.0);
    if (!(e <= worst)) {  // also catches NaN
      worst = e;
      worst_x = x;
    }
  }
  EXPECT_LT(worst, 8.7e-5) << "at x = " << worst_x;
  EXPECT_EQ(exp2_poly(0.0f), 1.0f);
  EXPECT_FLOAT_EQ(exp2_poly(-1.0f), 0.5f);
}

TEST(FastExp2Poly, MaskedAndUnderflowingArgumentsGiveZeroAndNaNStays) {
  EXPECT_EQ(exp2_poly(-std::numeric_limits<float>::infinity()), 0.0f);
  EXPECT_EQ(exp2_poly(-127.5f), 0.0f);
  EXPECT_EQ(exp2_poly(-1e30f), 0.0f);
  EXPECT_TRUE(std::isnan(exp2_poly(std::numeric_limits<float>::quiet_NaN())));
}

}  // namespace
