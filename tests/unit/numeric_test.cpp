// Host numeric types and test-data helpers: conversions are checked against
// hand-computed values, an independent formula decoder, and an independent
// round-to-nearest-even built from the sorted list of representable values.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "kdecl/numeric/bfloat16.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/float8_e4m3.hpp"
#include "kdecl/numeric/float8_e5m2.hpp"
#include "kdecl/numeric/half.hpp"
#include "kdecl/numeric/host_storage.hpp"
#include "kdecl/numeric/relative_error.hpp"
#include "kdecl/numeric/tf32.hpp"

namespace {

using kdecl::bfloat16;
using kdecl::dtype;
using kdecl::float8_e4m3;
using kdecl::float8_e5m2;
using kdecl::half;

// ---------------------------------------------------------------------------
// Format descriptions used by the independent checks below.

struct format {
  int exponent_bits, mantissa_bits, total_bits;
  bool ieee_specials;    // all-ones exponent is inf/NaN (false: E4M3, only S.1111.111 is NaN)
  bool saturates;        // overflow -> largest finite (fp8, __NV_SATFINITE) instead of infinity
};
constexpr format half_format{5, 10, 16, true, false};
constexpr format bf16_format{8, 7, 16, true, false};
constexpr format e4m3_format{4, 3, 8, false, true};
constexpr format e5m2_format{5, 2, 8, true, true};

// Value of a bit pattern from the textbook formula (double; NaN for NaN patterns).
double formula_value(const format& f, std::uint32_t bits) {
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const bool negative = (bits >> (f.total_bits - 1)) & 1u;
  const std::uint32_t e = (bits >> f.mantissa_bits) & ((1u << f.exponent_bits) - 1);
  const std::uint32_t m = bits & ((1u << f.mantissa_bits) - 1);
  const std::uint32_t max_e = (1u << f.exponent_bits) - 1;
  double v;
  if (f.ieee_specials && e == max_e) {
    v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
  } else if (!f.ieee_specials && e == max_e && m == (1u << f.mantissa_bits) - 1) {
    v = std::numeric_limits<double>::quiet_NaN();
  } else if (e == 0) {
    v = std::ldexp(double(m), 1 - bias - f.mantissa_bits);
  } else {
    v = std::ldexp(1.0 + double(m) / double(1u << f.mantissa_bits), int(e) - bias);
  }
  return negative ? -v : v;
}

// Round-to-nearest-even of |x| onto the non-negative finite values of f, found
// by search in the sorted value list; returns the magnitude bit pattern.
class reference_rounder {
 public:
  explicit reference_rounder(const format& f) : f_(f) {
    const std::uint32_t magnitudes = 1u << (f.total_bits - 1);
    for (std::uint32_t bits = 0; bits < magnitudes; ++bits) {
      const double v = formula_value(f, bits);
      if (std::isfinite(v)) values_.push_back({v, bits});
    }
    std::sort(values_.begin(), values_.end());
    const double max = values_.back().value, below_max = values_[values_.size() - 2].value;
    overflow_midpoint_ = max + (max - below_max) / 2;  // halfway to the next (missing) value
    infinity_bits_ = ((1u << f.exponent_bits) - 1) << f.mantissa_bits;
  }

  std::uint32_t magnitude_bits(double x) const {
    x = std::fabs(x);
    if (x >= overflow_midpoint_)  // the tie rounds to the even "next binade" value: overflow
      return f_.saturates ? values_.back().bits : infinity_bits_;
    auto hi = std::lower_bound(values_.begin(), values_.end(), entry{x, 0});
    if (hi == values_.end()) return values_.back().bits;
    if (hi->value == x || hi == values_.begin()) return hi->bits;
    auto lo = hi - 1;
    const double mid = (lo->value + hi->value) / 2;
    if (x < mid) return lo->bits;
    if (x > mid) return hi->bits;
    return (lo->bits & 1u) == 0 ? lo->bits : hi->bits;
  }

  std::vector<double> finite_values() const {
    std::vector<double> v;
    for (auto& e : values_) v.push_back(e.value);
    return v;
  }

 private:
  struct entry {
    double value;
    std::uint32_t bits;
    bool operator<(const entry& o) const { return value < o.value; }
  };
  format f_;
  std::vector<entry> values_;
  double overflow_midpoint_ = 0;
  std::uint32_t infinity_bits_ = 0;
};

// Floats to test rounding with: a sweep of bit patterns across the whole range,
// plus every midpoint between neighbouring values of the format and the floats
// just either side of it (where rounding bugs live).
std::vector<float> rounding_probes(const reference_rounder& r) {
  std::vector<float> probes;
  for (std::uint64_t bits = 0; bits < 0x7F80'0000u; bits += 4099) probes.push_back(std::bit_cast<float>(std::uint32_t(bits)));
  const auto values = r.finite_values();
  for (std::size_t i = 0; i + 1 < values.size(); ++i) {
    const float mid = float((values[i] + values[i + 1]) / 2);  // exact: formats are narrower than float
    probes.push_back(mid);
    probes.push_back(std::nextafter(mid, 0.0f));
    probes.push_back(std::nextafter(mid, std::numeric_limits<float>::infinity()));
  }
  const float max = float(values.back());
  for (float x : {max, std::nextafter(max, 0.0f), max * 1.03125f, max * 1.0625f, max * 1.1f, max * 2.0f})
    probes.push_back(x);
  probes.push_back(std::numeric_limits<float>::max());
  probes.push_back(std::numeric_limits<float>::denorm_min());
  probes.push_back(std::numeric_limits<float>::min());
  return probes;
}

template <class T, class Bits>
void expect_rounding_matches_reference(const format& f) {
  const reference_rounder r(f);
  const std::uint32_t sign_bit = 1u << (f.total_bits - 1);
  int failures = 0;
  for (float x : rounding_probes(r)) {
    for (float signed_x : {x, -x}) {
      const std::uint32_t expected = r.magnitude_bits(signed_x) | (std::signbit(signed_x) ? sign_bit : 0u);
      const std::uint32_t got = T(signed_x).bits();
      if (got != expected && ++failures <= 5)
        ADD_FAILURE() << "x=" << signed_x << " (0x" << std::hex << std::bit_cast<std::uint32_t>(signed_x)
                      << ") -> 0x" << got << ", expected 0x" << expected;
    }
  }
  EXPECT_EQ(failures, 0);
}

template <class T>
void expect_decode_matches_formula(const format& f) {
  for (std::uint32_t bits = 0; bits < (1u << f.total_bits); ++bits) {
    const double expected = formula_value(f, bits);
    const float got = T::from_bits(static_cast<decltype(T{}.bits())>(bits));
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(got)) << std::hex << bits;
    } else {
      EXPECT_EQ(double(got), expected) << std::hex << bits;
      EXPECT_EQ(std::signbit(got), std::signbit(expected)) << std::hex << bits;
    }
  }
}

const float nan_f = std::numeric_limits<float>::quiet_NaN();
const float inf_f = std::numeric_limits<float>::infinity();

// ---------------------------------------------------------------------------
// Layout and traits

TEST(NumericTypes, LayoutMatchesDeviceTypes) {
  static_assert(std::is_trivially_copyable_v<half> && sizeof(half) == 2);
  static_assert(std::is_trivially_copyable_v<bfloat16> && sizeof(bfloat16) == 2);
  static_assert(std::is_trivially_copyable_v<float8_e4m3> && sizeof(float8_e4m3) == 1);
  static_assert(std::is_trivially_copyable_v<float8_e5m2> && sizeof(float8_e5m2) == 1);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::fp16>, half>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::bf16>, bfloat16>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::fp32>, float>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::fp64>, double>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::fp8>, float8_e4m3>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::bf8>, float8_e5m2>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::int8>, std::int8_t>);
  static_assert(std::is_same_v<kdecl::host_storage_t<dtype::int32>, std::int32_t>);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::fp16), 2u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::bf16), 2u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::fp32), 4u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::fp64), 8u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::fp8), 1u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::bf8), 1u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::int8), 1u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::int32), 4u);
  EXPECT_EQ(kdecl::dtype_size_bytes(dtype::int4), 0u);
}

// ---------------------------------------------------------------------------
// half

TEST(Half, HandCheckedPatterns) {
  EXPECT_EQ(float(half::from_bits(0x3C00)), 1.0f);
  EXPECT_EQ(float(half::from_bits(0xC000)), -2.0f);
  EXPECT_EQ(float(half::from_bits(0x7BFF)), 65504.0f);
  EXPECT_EQ(float(half::from_bits(0x0400)), 0x1p-14f);
  EXPECT_EQ(float(half::from_bits(0x0001)), 0x1p-24f);
  EXPECT_EQ(float(half::from_bits(0x03FF)), 1023 * 0x1p-24f);
  EXPECT_EQ(float(half::from_bits(0x3555)), 0.333251953125f);
  EXPECT_EQ(float(half::from_bits(0x7C00)), inf_f);
  EXPECT_EQ(float(half::from_bits(0xFC00)), -inf_f);
  EXPECT_TRUE(std::signbit(float(half::from_bits(0x8000))));
  EXPECT_TRUE(std::isnan(float(half::from_bits(0x7E00))));

  EXPECT_EQ(half(1.0f / 3.0f).bits(), 0x3555);
  EXPECT_EQ(half(65519.0f).bits(), 0x7BFF);   // below the overflow midpoint
  EXPECT_EQ(half(65520.0f).bits(), 0x7C00);   // the midpoint ties to even: infinity
  EXPECT_EQ(half(-1e6f).bits(), 0xFC00);
  EXPECT_EQ(half(0x1p-25f).bits(), 0x0000);   // halfway to the smallest subnormal: even is 0
  EXPECT_EQ(half(0x1.8p-25f).bits(), 0x0001);
  EXPECT_EQ(half(-0.0f).bits(), 0x8000);
  EXPECT_EQ(half(1.0f + 0x1p-11f).bits(), 0x3C00);        // tie -> even (1.0)
  EXPECT_EQ(half(1.0f + 3 * 0x1p-11f).bits(), 0x3C02);    // tie -> even (1 + 2^-9)
  EXPECT_EQ(half(nan_f).bits(), 0x7FFF);                   // CUDA's canonical NaN
  EXPECT_EQ(half(inf_f).bits(), 0x7C00);
}

TEST(Half, AllPatternsDecodeAsFormula) { expect_decode_matches_formula<half>(half_format); }

TEST(Half, AllPatternsRoundTrip) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const half h = half::from_bits(std::uint16_t(bits));
    const float f = h;
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(float(half(f))));
    else EXPECT_EQ(half(f).bits(), bits) << std::hex << bits;
  }
}

TEST(Half, RoundsToNearestEven) { expect_rounding_matches_reference<half, std::uint16_t>(half_format); }

// ---------------------------------------------------------------------------
// bfloat16

TEST(BFloat16, HandCheckedPatterns) {
  EXPECT_EQ(float(bfloat16::from_bits(0x3F80)), 1.0f);
  EXPECT_EQ(float(bfloat16::from_bits(0xC040)), -3.0f);
  EXPECT_EQ(float(bfloat16::from_bits(0x7F7F)), 0x1.FEp127f);
  EXPECT_EQ(float(bfloat16::from_bits(0x0001)), 0x1p-133f);
  EXPECT_EQ(float(bfloat16::from_bits(0x7F80)), inf_f);
  EXPECT_EQ(bfloat16(1.0f + 0x1p-8f).bits(), 0x3F80);       // tie -> even
  EXPECT_EQ(bfloat16(1.0f + 3 * 0x1p-8f).bits(), 0x3F82);   // tie -> even
  EXPECT_EQ(bfloat16(1.0f + 0x1.2p-8f).bits(), 0x3F81);     // above the midpoint
  EXPECT_EQ(bfloat16(std::numeric_limits<float>::max()).bits(), 0x7F80);  // overflow -> inf
  EXPECT_EQ(bfloat16(nan_f).bits(), 0x7FFF);
  EXPECT_EQ(bfloat16(-inf_f).bits(), 0xFF80);
}

TEST(BFloat16, AllPatternsDecodeAsFormula) { expect_decode_matches_formula<bfloat16>(bf16_format); }

TEST(BFloat16, AllPatternsRoundTrip) {
  for (std::uint32_t bits = 0; bits < 65536; ++bits) {
    const float f = bfloat16::from_bits(std::uint16_t(bits));
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(float(bfloat16(f))));
    else EXPECT_EQ(bfloat16(f).bits(), bits) << std::hex << bits;
  }
}

TEST(BFloat16, RoundsToNearestEven) { expect_rounding_matches_reference<bfloat16, std::uint16_t>(bf16_format); }

// ---------------------------------------------------------------------------
// float8_e4m3 (OCP E4M3, finite-only, saturating)

TEST(Float8E4M3, HandCheckedPatterns) {
  EXPECT_EQ(float(float8_e4m3::from_bits(0x38)), 1.0f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x3C)), 1.5f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x40)), 2.0f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x7E)), 448.0f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0xFE)), -448.0f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x78)), 256.0f);    // exponent 1111 is a normal binade
  EXPECT_EQ(float(float8_e4m3::from_bits(0x08)), 0x1p-6f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x01)), 0x1p-9f);
  EXPECT_EQ(float(float8_e4m3::from_bits(0x07)), 7 * 0x1p-9f);
  EXPECT_TRUE(std::signbit(float(float8_e4m3::from_bits(0x80))));
  EXPECT_TRUE(std::isnan(float(float8_e4m3::from_bits(0x7F))));
  EXPECT_TRUE(std::isnan(float(float8_e4m3::from_bits(0xFF))));

  EXPECT_EQ(float8_e4m3(448.0f).bits(), 0x7E);
  EXPECT_EQ(float8_e4m3(464.0f).bits(), 0x7E);    // midpoint to "480" ties to even 448
  EXPECT_EQ(float8_e4m3(500.0f).bits(), 0x7E);    // saturates (never 0x7F NaN)
  EXPECT_EQ(float8_e4m3(-1e9f).bits(), 0xFE);
  EXPECT_EQ(float8_e4m3(inf_f).bits(), 0x7E);     // __NV_SATFINITE: infinity saturates too
  EXPECT_EQ(float8_e4m3(-inf_f).bits(), 0xFE);
  EXPECT_EQ(float8_e4m3(nan_f).bits(), 0x7F);
  EXPECT_EQ(float8_e4m3(-nan_f).bits(), 0x7F);   // canonical NaN, sign dropped (CUDA)
  EXPECT_EQ(float8_e4m3(0x1p-10f).bits(), 0x00);  // half the smallest subnormal: even is 0
  EXPECT_EQ(float8_e4m3(0x1.04p-10f).bits(), 0x01);
  EXPECT_EQ(float8_e4m3(1.0625f).bits(), 0x38);   // tie 1.0 / 1.125 -> even 1.0
  EXPECT_EQ(float8_e4m3(1.1875f).bits(), 0x3A);   // tie 1.125 / 1.25 -> even 1.25
  EXPECT_EQ(float8_e4m3(0.3f).bits(), 0x2A);      // 0.3 -> 0.3125 = 1.25 * 2^-2
}

TEST(Float8E4M3, AllPatternsDecodeAsFormula) { expect_decode_matches_formula<float8_e4m3>(e4m3_format); }

TEST(Float8E4M3, AllPatternsRoundTrip) {
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    const float f = float8_e4m3::from_bits(std::uint8_t(bits));
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(float(float8_e4m3(f))));
    else EXPECT_EQ(float8_e4m3(f).bits(), bits) << std::hex << bits;
  }
}

TEST(Float8E4M3, RoundsToNearestEvenAndSaturates) {
  expect_rounding_matches_reference<float8_e4m3, std::uint8_t>(e4m3_format);
}

// ---------------------------------------------------------------------------
// float8_e5m2 (IEEE-like, saturating conversion)

TEST(Float8E5M2, HandCheckedPatterns) {
  EXPECT_EQ(float(float8_e5m2::from_bits(0x3C)), 1.0f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0x3D)), 1.25f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0x7B)), 57344.0f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0x04)), 0x1p-14f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0x01)), 0x1p-16f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0x7C)), inf_f);
  EXPECT_EQ(float(float8_e5m2::from_bits(0xFC)), -inf_f);
  for (int b : {0x7D, 0x7E, 0x7F, 0xFD, 0xFE, 0xFF}) EXPECT_TRUE(std::isnan(float(float8_e5m2::from_bits(std::uint8_t(b)))));

  EXPECT_EQ(float8_e5m2(60000.0f).bits(), 0x7B);   // saturates
  EXPECT_EQ(float8_e5m2(inf_f).bits(), 0x7B);      // __NV_SATFINITE: infinity saturates too
  EXPECT_EQ(float8_e5m2(-inf_f).bits(), 0xFB);
  EXPECT_EQ(float8_e5m2(1.125f).bits(), 0x3C);     // tie -> even 1.0
  EXPECT_EQ(float8_e5m2(1.375f).bits(), 0x3E);     // tie -> even 1.5
  EXPECT_EQ(float8_e5m2(0x1p-17f).bits(), 0x00);   // half the smallest subnormal
  EXPECT_EQ(float8_e5m2(nan_f).bits(), 0x7F);      // canonical NaN (CUDA)
  EXPECT_EQ(float8_e5m2(-nan_f).bits(), 0x7F);
}

TEST(Float8E5M2, AllPatternsDecodeAsFormula) { expect_decode_matches_formula<float8_e5m2>(e5m2_format); }

TEST(Float8E5M2, AllPatternsRoundTrip) {
  for (std::uint32_t bits = 0; bits < 256; ++bits) {
    const float f = float8_e5m2::from_bits(std::uint8_t(bits));
    if (std::isnan(f)) EXPECT_TRUE(std::isnan(float(float8_e5m2(f))));
    else if (std::isinf(f)) EXPECT_EQ(float8_e5m2(f).bits(), (bits & 0x80u) | 0x7Bu);  // saturating
    else EXPECT_EQ(float8_e5m2(f).bits(), bits) << std::hex << bits;
  }
}

TEST(Float8E5M2, RoundsToNearestEvenAndSaturates) {
  expect_rounding_matches_reference<float8_e5m2, std::uint8_t>(e5m2_format);
}

// ---------------------------------------------------------------------------
// tf32

TEST(Tf32, RoundsToTenMantissaBitsTiesAway) {
  EXPECT_EQ(kdecl::round_to_tf32(1.0f), 1.0f);
  EXPECT_EQ(kdecl::round_to_tf32(1.0f + 0x1p-11f), 1.0f + 0x1p-10f);            // tie: away from zero
  EXPECT_EQ(kdecl::round_to_tf32(-(1.0f + 0x1p-11f)), -(1.0f + 0x1p-10f));
  EXPECT_EQ(kdecl::round_to_tf32(1.0f + 0x1p-11f - 0x1p-23f), 1.0f);            // just below the tie
  EXPECT_EQ(kdecl::round_to_tf32(1.0f + 0x1p-10f), 1.0f + 0x1p-10f);            // representable
  EXPECT_TRUE(std::isnan(kdecl::round_to_tf32(nan_f)));
  EXPECT_EQ(kdecl::round_to_tf32(inf_f), inf_f);
  std::vector<float> xs(10000);
  kdecl::numeric::fill_uniform(xs.data(), dtype::fp32, xs.size(), 7);
  for (float x : xs) {
    const float r = kdecl::round_to_tf32(x);
    EXPECT_EQ(std::bit_cast<std::uint32_t>(r) & 0x1FFFu, 0u);
    EXPECT_LE(std::fabs(r - x), std::fabs(x) * 0x1p-11f);
  }
}

// ---------------------------------------------------------------------------
// Fill, poison, relative error

TEST(Fill, UniformInRangeNonZeroAndDeterministic) {
  for (dtype d : {dtype::fp16, dtype::bf16, dtype::fp32, dtype::fp64, dtype::fp8, dtype::bf8}) {
    const std::size_t n = 4096;
    std::vector<unsigned char> a(n * kdecl::dtype_size_bytes(d)), b(a.size()), c(a.size());
    kdecl::numeric::fill_uniform(a.data(), d, n, 42);
    kdecl::numeric::fill_uniform(b.data(), d, n, 42);
    kdecl::numeric::fill_uniform(c.data(), d, n, 43);
    EXPECT_EQ(a, b) << kdecl::to_string(d);
    EXPECT_NE(a, c) << kdecl::to_string(d);
    double lo = 1, hi = -1;
    for (std::size_t i = 0; i < n; ++i) {
      const double v = kdecl::numeric::load_as_double(a.data(), d, i);
      ASSERT_TRUE(v >= -1.0 && v <= 1.0 && v != 0.0) << kdecl::to_string(d) << " " << v;
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    EXPECT_LT(lo, -0.9);  // covers the range
    EXPECT_GT(hi, 0.9);
  }
}

TEST(Fill, IntegersSmallAndNotAllZero) {
  std::vector<std::int8_t> v(1000);
  kdecl::numeric::fill_uniform(v.data(), dtype::int8, v.size(), 1);
  EXPECT_TRUE(std::all_of(v.begin(), v.end(), [](int x) { return x >= -4 && x <= 4; }));
  EXPECT_EQ(*std::min_element(v.begin(), v.end()), -4);
  EXPECT_EQ(*std::max_element(v.begin(), v.end()), 4);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {  // one element: ~1/9 of seeds draw a zero
    std::int8_t one = 0;
    kdecl::numeric::fill_uniform(&one, dtype::int8, 1, seed);
    EXPECT_NE(one, 0);
  }
}

TEST(Poison, MakesFloatsNaN) {
  std::vector<float> f(8, 1.0f);
  kdecl::numeric::poison(f.data(), dtype::fp32, f.size());
  for (float x : f) EXPECT_TRUE(std::isnan(x));
  std::vector<half> h(8, half(1.0f));
  kdecl::numeric::poison(h.data(), dtype::fp16, h.size());
  for (half x : h) EXPECT_TRUE(std::isnan(float(x)));
  std::vector<float8_e4m3> e(8, float8_e4m3(1.0f));
  kdecl::numeric::poison(e.data(), dtype::fp8, e.size());
  for (auto x : e) EXPECT_TRUE(std::isnan(float(x)));
}

TEST(RelativeError, ValuesAndNaN) {
  const std::vector<double> ref{3, 4};
  EXPECT_EQ(kdecl::numeric::relative_frobenius_error(std::vector<double>{3, 4}, ref), 0.0);
  EXPECT_DOUBLE_EQ(kdecl::numeric::relative_frobenius_error(std::vector<double>{3, 5}, ref), 0.2);
  EXPECT_TRUE(std::isnan(kdecl::numeric::relative_frobenius_error(std::vector<double>{3, NAN}, ref)));
  EXPECT_TRUE(std::isnan(kdecl::numeric::relative_frobenius_error(std::vector<double>{3, 4}, std::vector<double>{NAN, 4})));
  EXPECT_FALSE(kdecl::numeric::relative_frobenius_error(std::vector<double>{3, NAN}, ref) < 1.0);  // NaN never passes
  EXPECT_EQ(kdecl::numeric::relative_frobenius_error(std::vector<double>{0, 0}, std::vector<double>{0, 0}), 0.0);
  EXPECT_TRUE(std::isinf(kdecl::numeric::relative_frobenius_error(std::vector<double>{1, 0}, std::vector<double>{0, 0})));

  const std::vector<half> out{half(3.0f), half(4.0f)};
  EXPECT_EQ(kdecl::numeric::relative_frobenius_error(out.data(), dtype::fp16, ref), 0.0);
  const std::vector<half> bad{half(3.0f), half::from_bits(0x7E00)};
  EXPECT_TRUE(std::isnan(kdecl::numeric::relative_frobenius_error(bad.data(), dtype::fp16, ref)));
}

}  // namespace
