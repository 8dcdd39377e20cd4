// Relative Frobenius error ||out - ref|| / ||ref||, the accuracy measure of
// every GEMM check. A NaN anywhere (output or reference) makes the result NaN,
// and NaN compares false with any threshold, so NaN never passes.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include "kdecl/core/enums.hpp"
#include "kdecl/numeric/element_access.hpp"

namespace kdecl::numeric {

namespace detail {
// Accumulates the two sums; a zero reference gives 0 for an exact match, else inf.
struct frobenius_accumulator {
  double diff2 = 0, ref2 = 0;
  bool nan = false;
  void add(double out, double ref) {
    if (std::isnan(out) || std::isnan(ref)) nan = true;
    const double diff = out - ref;
    diff2 += diff * diff;
    ref2 += ref * ref;
  }
  void merge(const frobenius_accumulator& o) {
    diff2 += o.diff2;
    ref2 += o.ref2;
    nan = nan || o.nan;
  }
  double result() const {
    if (nan) return std::numeric_limits<double>::quiet_NaN();
    if (ref2 == 0) return diff2 == 0 ? 0.0 : std::numeric_limits<double>::infinity();
    return std::sqrt(diff2) / std::sqrt(ref2);
  }
};
}  // namespace detail

inline double relative_frobenius_error(std::span<const double> out, std::span<const double> ref) {
  if (out.size() != ref.size()) return std::numeric_limits<double>::quiet_NaN();
  detail::frobenius_accumulator acc;
  for (std::size_t i = 0; i < out.size(); ++i) acc.add(out[i], ref[i]);
  return acc.result();
}

// `out` holds `count` contiguous elements of dtype `d`.
inline double relative_frobenius_error(const void* out, dtype d, std::span<const double> ref) {
  detail::frobenius_accumulator acc;
  for (std::size_t i = 0; i < ref.size(); ++i) acc.add(load_as_double(out, d, i), ref[i]);
  return acc.result();
}

}  // namespace kdecl::numeric
