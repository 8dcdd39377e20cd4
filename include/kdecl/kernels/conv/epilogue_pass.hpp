// A forward convolution's fused epilogue as a pass of its own,
//   out = act(result + bias[g * K/G + k] + residual),
// over the output of a kernel that computed the plain convolution into `result` (the output's
// shape and strides; it may be `out` itself unless the residual is). The dispatcher composes a
// plain kernel with this pass where no registered kernel compiles the problem's fusion in
// (conv_dispatcher.cpp): one more read and write of the output instead of a refusal.
//
// The output as rows of K/G contiguous channels, one per (n, d, h, w, g) in logical order; each
// backend's pass (host/, cuda/, hip/ epilogue_pass) computes one element per thread or iteration.
// Constexpr, so the same arithmetic runs on the device and in the host tests.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/enums.hpp"

namespace kdecl::kernels {

struct conv_epilogue_rows {
  std::int64_t extent[5];  // n, d, h, w, g
  std::int64_t stride[5];  // the output's element strides along them
  std::int64_t kg;         // channels per row (K/G), contiguous
  conv_fusion fuse;

  constexpr std::int64_t rows() const { return extent[0] * extent[1] * extent[2] * extent[3] * extent[4]; }
  constexpr std::int64_t elements() const { return rows() * kg; }
  // Where row r starts, and its group.
  constexpr std::int64_t row_offset(std::int64_t r, std::int64_t& group) const {
    std::int64_t at = 0;
    for (int d = 4; d >= 0; --d) {
      const std::int64_t i = r % extent[d];
      r /= extent[d];
      if (d == 4) group = i;
      at += i * stride[d];
    }
    return at;
  }
};

// Of a normalized forward problem.
inline conv_epilogue_rows epilogue_rows_of(const grouped_conv_problem& p) {
  const auto out = p.output_dims();
  const auto& s = p.out_strides;
  return {{p.n, out[0], out[1], out[2], p.g},
          {s.n, s.spatial[0], s.spatial[1], s.spatial[2], s.g},
          p.k_per_group(),
          p.fusion};
}

// Calls f(std::integral_constant<elementwise, A>{}) for the activation `act` (pass_through for any
// other): each backend's pass instantiates one kernel per activation through it.
template <class F>
decltype(auto) with_activation(elementwise act, F&& f) {
  switch (act) {
    case elementwise::relu: return f(std::integral_constant<elementwise, elementwise::relu>{});
    case elementwise::gelu: return f(std::integral_constant<elementwise, elementwise::gelu>{});
    case elementwise::sigmoid: return f(std::integral_constant<elementwise, elementwise::sigmoid>{});
    case elementwise::tanh: return f(std::integral_constant<elementwise, elementwise::tanh>{});
    default: return f(std::integral_constant<elementwise, elementwise::pass_through>{});
  }
}

// The pass of backend B (host/epilogue_pass.hpp, cuda/epilogue_pass.cuh, hip/epilogue_pass.hpp):
//   template <dtype Out> static status run(const grouped_conv_problem& normalized, const void* result,
//                                          const grouped_conv_args& args, void* stream);
// reading `result`, args.bias and args.residual, writing args.out.
template <backend B>
struct conv_epilogue_pass;

}  // namespace kdecl::kernels
