// A convolution tensor of random values for host tests against the double reference:
// every element of the problem's span (strides included) filled uniformly in [-1, 1]
// in the tensor's dtype.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/numeric/fill.hpp"

namespace kdecl::testing {

inline std::vector<unsigned char> random_conv_tensor(const grouped_conv_problem& p, conv_tensor t,
                                                     std::uint64_t seed) {
  const auto n = std::size_t(p.span(t));
  std::vector<unsigned char> bytes(n * dtype_size_bytes(p.dtype_of(t)));
  numeric::fill_uniform(bytes.data(), p.dtype_of(t), n, seed);
  return bytes;
}

}  // namespace kdecl::testing
