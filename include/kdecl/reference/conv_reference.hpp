// The double-precision grouped-convolution reference every conv kernel is
// checked against, for all three directions (grouped_conv_problem.hpp gives
// the formulas), every rank, layout and tensor stride.
//
// The operands are read in double from their stored values; the result is
// returned in double, unrounded for floating dtypes (integer results are
// rounded to nearest even and saturated, as they are compared exactly), in the
// tensor's logical order:
//   activations (input, output): (n, d, h, w, g, c)  -- channels-last, groups beside channels
//   weights:                     (g, k, z, y, x, c)
// whatever the layout and strides. Independent of the host kernel's code
// except the shared element types. A fused forward epilogue (problem.fusion)
// is applied to the double sum: act(sum + bias[g * K/G + k] + residual).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/numeric/element_access.hpp"
#include "kdecl/numeric/relative_error.hpp"
#include "kdecl/reference/gemm_reference.hpp"

namespace kdecl::reference {

namespace conv_detail {

using i64 = std::int64_t;

// Extents of a tensor in its logical order (outer to inner), and the element
// stride of each in memory.
struct logical_view {
  std::array<i64, 6> extent{};
  std::array<i64, 6> stride{};
  i64 elements() const {
    i64 e = 1;
    for (i64 x : extent) e *= x;
    return e;
  }
};

inline logical_view view_of(const grouped_conv_problem& p, conv_tensor t) {
  const auto& s = p.strides_of(t);
  const auto out = p.output_dims();
  switch (t) {
    case conv_tensor::input:
      return {{p.n, p.input_dims[0], p.input_dims[1], p.input_dims[2], p.g, p.c_per_group()},
              {s.n, s.spatial[0], s.spatial[1], s.spatial[2], s.g, s.c}};
    case conv_tensor::output:
      return {{p.n, out[0], out[1], out[2], p.g, p.k_per_group()},
              {s.n, s.spatial[0], s.spatial[1], s.spatial[2], s.g, s.c}};
    case conv_tensor::weight:
      return {{p.g, p.k_per_group(), p.filter_dims[0], p.filter_dims[1], p.filter_dims[2], p.c_per_group()},
              {s.g, s.n, s.spatial[0], s.spatial[1], s.spatial[2], s.c}};
  }
  return {};
}

// Calls f(logical_index, memory_offset) for every element in logical order.
template <class F>
void for_each_element(const logical_view& v, F&& f) {
  i64 logical = 0;
  for (i64 a = 0; a < v.extent[0]; ++a)
    for (i64 b = 0; b < v.extent[1]; ++b)
      for (i64 c = 0; c < v.extent[2]; ++c)
        for (i64 d = 0; d < v.extent[3]; ++d)
          for (i64 e = 0; e < v.extent[4]; ++e)
            for (i64 x = 0; x < v.extent[5]; ++x)
              f(logical++, a * v.stride[0] + b * v.stride[1] + c * v.stride[2] + d * v.stride[3] +
                               e * v.stride[4] + x * v.stride[5]);
}

// An operand's values as the multiply sees them: fp32 data of a tf32 problem
// rounded to tf32 (round to nearest, ties away: the cvt.rna the kernels issue).
// `operand` false: the stored values (a result, or the residual the epilogue adds).
inline std::vector<double> load(const grouped_conv_problem& p, conv_tensor t, const void* data, bool operand = true) {
  const logical_view v = view_of(p, t);
  std::vector<double> out(std::size_t(v.elements()));
  const dtype d = p.dtype_of(t);
  const bool tf32 = operand && p.compute_type == dtype::tf32 && d == dtype::fp32;
  for_each_element(v, [&](i64 i, i64 at) {
    const double x = numeric::load_as_double(data, d, std::size_t(at));
    out[std::size_t(i)] = tf32 ? double(round_to_tf32(float(x))) : x;
  });
  return out;
}

inline void require_valid(const grouped_conv_problem& p) {
  if (auto e = p.validate()) throw std::invalid_argument("reference::grouped_conv: invalid problem: " + *e);
  if (p != p.normalized()) throw std::invalid_argument("reference::grouped_conv: problem is not normalized");
}

}  // namespace conv_detail

// The tensor the problem's direction computes, in logical order.
inline std::vector<double> grouped_conv(const grouped_conv_problem& p, const grouped_conv_args& args) {
  using namespace conv_detail;
  require_valid(p);
  const i64 N = p.n, G = p.g, C = p.c_per_group(), K = p.k_per_group();
  const auto in_dim = p.input_dims.v, f_dim = p.filter_dims.v, st = p.stride_dims.v, dil = p.dilation_dims.v,
             pad = p.pad_left_dims.v;
  const auto out_dim = p.output_dims();
  // Logical (packed) index helpers.
  auto in_at = [&](i64 n, i64 d, i64 h, i64 w, i64 g, i64 c) {
    return (((((n * in_dim[0] + d) * in_dim[1] + h) * in_dim[2] + w) * G + g) * C + c);
  };
  auto out_at = [&](i64 n, i64 d, i64 h, i64 w, i64 g, i64 k) {
    return (((((n * out_dim[0] + d) * out_dim[1] + h) * out_dim[2] + w) * G + g) * K + k);
  };
  auto wei_at = [&](i64 g, i64 k, i64 z, i64 y, i64 x, i64 c) {
    return (((((g * K + k) * f_dim[0] + z) * f_dim[1] + y) * f_dim[2] + x) * C + c);
  };
  const conv_tensor result_tensor = p.result();
  const bool integer = p.dtype_of(result_tensor) == dtype::int8 || p.dtype_of(result_tensor) == dtype::int32;
  auto finish = [&](double x) {
    if (!integer) return x;
    return p.dtype_of(result_tensor) == dtype::int8 ? double(numeric::saturate_round<std::int8_t>(x))
                                                     : double(numeric::saturate_round<std::int32_t>(x));
  };

  std::vector<double> result(std::size_t(view_of(p, result_tensor).elements()));
  switch (p.dir) {
    case conv_direction::fwd: {
      const auto x = load(p, conv_tensor::input, args.in);
      const auto w = load(p, conv_tensor::weight, args.wei);
      const conv_fusion& fuse = p.fusion;
      if ((fuse.bias && !args.bias) || (fuse.residual && !args.residual))
        throw std::invalid_argument("reference::grouped_conv: the fused epilogue's bias or residual pointer is null");
      // The residual has the output's shape, dtype and strides: read through the output's view.
      const auto res = fuse.residual ? load(p, conv_tensor::output, args.residual, false) : std::vector<double>{};
      const i64 rows = N * out_dim[0] * out_dim[1] * out_dim[2];
      detail::parallel_rows(rows, [&](i64 row) {
        const i64 o2 = row % out_dim[2], o1 = row / out_dim[2] % out_dim[1],
                  o0 = row / (out_dim[2] * out_dim[1]) % out_dim[0], n = row / (out_dim[2] * out_dim[1] * out_dim[0]);
        for (i64 g = 0; g < G; ++g)
          for (i64 k = 0; k < K; ++k) {
            double sum = 0;
            for (i64 z = 0; z < f_dim[0]; ++z) {
              const i64 i0 = o0 * st[0] - pad[0] + z * dil[0];
              if (i0 < 0 || i0 >= in_dim[0]) continue;
              for (i64 y = 0; y < f_dim[1]; ++y) {
                const i64 i1 = o1 * st[1] - pad[1] + y * dil[1];
                if (i1 < 0 || i1 >= in_dim[1]) continue;
                for (i64 xx = 0; xx < f_dim[2]; ++xx) {
                  const i64 i2 = o2 * st[2] - pad[2] + xx * dil[2];
                  if (i2 < 0 || i2 >= in_dim[2]) continue;
                  const double* xi = &x[std::size_t(in_at(n, i0, i1, i2, g, 0))];
                  const double* wi = &w[std::size_t(wei_at(g, k, z, y, xx, 0))];
                  for (i64 c = 0; c < C; ++c) sum += xi[c] * wi[c];
                }
              }
            }
            const i64 at = out_at(n, o0, o1, o2, g, k);
            if (fuse.bias) sum += numeric::load_as_double(args.bias, p.out_type, std::size_t(g * K + k));
            if (fuse.residual) sum += res[std::size_t(at)];
            result[std::size_t(at)] = finish(detail::elementwise_double(fuse.act, sum));
          }
      });
      break;
    }
    case conv_direction::bwd_data: {
      const auto dy = load(p, conv_tensor::output, args.out);
      const auto w = load(p, conv_tensor::weight, args.wei);
      const i64 rows = N * in_dim[0] * in_dim[1] * in_dim[2];
      // The output position o whose tap f reads input position i, or -1.
      auto source = [&](int s, i64 i, i64 f) -> i64 {
        const i64 num = i + pad[std::size_t(s)] - f * dil[std::size_t(s)];
        if (num < 0 || num % st[std::size_t(s)] != 0) return -1;
        const i64 o = num / st[std::size_t(s)];
        return o < out_dim[std::size_t(s)] ? o : -1;
      };
      detail::parallel_rows(rows, [&](i64 row) {
        const i64 i2 = row % in_dim[2], i1 = row / in_dim[2] % in_dim[1],
                  i0 = row / (in_dim[2] * in_dim[1]) % in_dim[0], n = row / (in_dim[2] * in_dim[1] * in_dim[0]);
        for (i64 g = 0; g < G; ++g)
          for (i64 c = 0; c < C; ++c) {
            double sum = 0;
            for (i64 z = 0; z < f_dim[0]; ++z) {
              const i64 o0 = source(0, i0, z);
              if (o0 < 0) continue;
              for (i64 y = 0; y < f_dim[1]; ++y) {
                const i64 o1 = source(1, i1, y);
                if (o1 < 0) continue;
                for (i64 xx = 0; xx < f_dim[2]; ++xx) {
                  const i64 o2 = source(2, i2, xx);
                  if (o2 < 0) continue;
                  for (i64 k = 0; k < K; ++k)
                    sum += dy[std::size_t(out_at(n, o0, o1, o2, g, k))] * w[std::size_t(wei_at(g, k, z, y, xx, c))];
                }
              }
            }
            result[std::size_t(in_at(n, i0, i1, i2, g, c))] = finish(sum);
          }
      });
      break;
    }
    case conv_direction::bwd_weight: {
      const auto x = load(p, conv_tensor::input, args.in);
      const auto dy = load(p, conv_tensor::output, args.out);
      const i64 rows = G * K;
      detail::parallel_rows(rows, [&](i64 row) {
        const i64 g = row / K, k = row % K;
        for (i64 z = 0; z < f_dim[0]; ++z)
          for (i64 y = 0; y < f_dim[1]; ++y)
            for (i64 xx = 0; xx < f_dim[2]; ++xx) {
              std::vector<double> sum(std::size_t(C), 0.0);
              for (i64 n = 0; n < N; ++n)
                for (i64 o0 = 0; o0 < out_dim[0]; ++o0) {
                  const i64 i0 = o0 * st[0] - pad[0] + z * dil[0];
                  if (i0 < 0 || i0 >= in_dim[0]) continue;
                  for (i64 o1 = 0; o1 < out_dim[1]; ++o1) {
                    const i64 i1 = o1 * st[1] - pad[1] + y * dil[1];
                    if (i1 < 0 || i1 >= in_dim[1]) continue;
                    for (i64 o2 = 0; o2 < out_dim[2]; ++o2) {
                      const i64 i2 = o2 * st[2] - pad[2] + xx * dil[2];
                      if (i2 < 0 || i2 >= in_dim[2]) continue;
                      const double g_out = dy[std::size_t(out_at(n, o0, o1, o2, g, k))];
                      const double* xi = &x[std::size_t(in_at(n, i0, i1, i2, g, 0))];
                      for (i64 c = 0; c < C; ++c) sum[std::size_t(c)] += g_out * xi[c];
                    }
                  }
                }
              for (i64 c = 0; c < C; ++c) result[std::size_t(wei_at(g, k, z, y, xx, c))] = finish(sum[std::size_t(c)]);
            }
      });
      break;
    }
  }
  return result;
}

// The computed tensor of `p` (a host copy of the buffer, with the problem's
// dtype, layout and strides) in the reference's logical order.
inline std::vector<double> gather_result(const grouped_conv_problem& p, const void* data) {
  return conv_detail::load(p, p.result(), data, false);
}

// Relative Frobenius error of a computed tensor against grouped_conv()'s values; NaN if either holds a NaN.
inline double relative_error(const grouped_conv_problem& p, const void* data, std::span<const double> ref) {
  return numeric::relative_frobenius_error(gather_result(p, data), ref);
}

// The accuracy a correct kernel must reach: the GEMM thresholds of the implicit
// GEMM's dtypes (fp32 1e-5, tf32 1e-3, fp16/bf16 1e-2, fp8 data 1e-2, integers exact),
// loosened for fp32 data by the rounding of a long fp32 reduction: 2^-24
// times the square root of the reduction length, times 4.
inline double tolerance(const grouped_conv_problem& p) {
  gemm_signature s;
  s.a = p.dir == conv_direction::fwd ? p.in_type : p.out_type;
  s.b = p.dir == conv_direction::bwd_weight ? p.in_type : p.wei_type;
  s.c = p.dtype_of(p.result());
  s.acc = p.acc_type;
  s.compute = p.compute_type;
  double t = tolerance(s);
  if (s.a == dtype::fp32 && s.acc == dtype::fp32)
    t = std::max(t, 4.0 * 0x1p-24 * std::sqrt(double(std::max<std::int64_t>(1, p.implicit_gemm().k))));
  return t;
}

}  // namespace kdecl::reference
