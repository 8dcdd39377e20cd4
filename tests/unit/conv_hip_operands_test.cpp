// The HIP convolution (kernels/conv/hip/, compiled for gfx90a and gfx940, never run: no AMD GPU
// is available) on the host: each direction's implicit GEMM is built from the very sources and
// row maps its tile loaders and epilogue use (conv_hip_operands.hpp), read the way the loaders
// read them (whole vectors: a k-contiguous vector from its first k, a transposed one from its
// first row), multiplied, and stored through the kernel's addressing into a result poisoned with
// NaN, which must then equal the double reference: every element written, each with the
// convolution's value. Odd problems: strides 2-4 and filters smaller than the stride (phases no
// tap reaches), dilation, asymmetric padding, groups, 1-D and 3-D, padded strides, a group-major
// layout, the fused bias + residual + relu; backward-weight's depth split into ranges summed in
// split order. Then the problem rules (conv_hip_rules.hpp): what the kernel refuses, and why.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kdecl/kernels/conv/hip/conv_hip_operands.hpp"
#include "kdecl/kernels/conv/hip/conv_hip_rules.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/conv_reference.hpp"

namespace kdecl {
namespace {

using P = grouped_conv_problem;
namespace hk = kernels::hip;

// Element (p, k) of an operand as the HIP tile loader reads it: the vector holding it, Vec
// elements along the contiguous direction, found from its first element (zero where the source
// says so).
template <class Source>
double read(const float* tensor, const Source& s, int vec, bool k_contiguous, int p, int k) {
  long long at = 0;
  if (k_contiguous) {
    const int k0 = k - k % vec;
    return s.offset(s.line_of(p), k0, at) ? tensor[at + k % vec] : 0.0;
  }
  const int p0 = p - p % vec;
  return s.offset(s.line_of(p0), k, at) ? tensor[at + p % vec] : 0.0;
}

struct operand {
  const float* tensor;
  int vec;
  bool k_contiguous;
};

// C(m, n) of the GEMM A x B^T over depth [k_begin, k_end).
template <class SA, class SB>
double dot(const operand& a, const SA& sa, const operand& b, const SB& sb, int m, int n, int k_begin, int k_end) {
  double sum = 0;
  for (int k = k_begin; k < k_end; ++k)
    sum += read(a.tensor, sa, a.vec, a.k_contiguous, m, k) * read(b.tensor, sb, b.vec, b.k_contiguous, n, k);
  return sum;
}

std::vector<float> random_tensor(const P& p, conv_tensor t, std::uint64_t seed) {
  std::vector<float> v(std::size_t(p.span(t)));
  numeric::fill_uniform(v.data(), dtype::fp32, v.size(), seed);
  return v;
}

struct tensors {
  std::vector<float> in, wei, out, bias, residual;
  std::vector<float>& result(const P& p) {
    return p.dir == conv_direction::fwd ? out : p.dir == conv_direction::bwd_data ? in : wei;
  }
};

// The problem's operands (random) and its result (NaN).
tensors make_tensors(const P& p) {
  tensors t{random_tensor(p, conv_tensor::input, 1), random_tensor(p, conv_tensor::weight, 2),
            random_tensor(p, conv_tensor::output, 3), {}, {}};
  std::vector<float>& r = t.result(p);
  std::fill(r.begin(), r.end(), std::numeric_limits<float>::quiet_NaN());
  if (p.fusion.bias) {
    t.bias.resize(std::size_t(p.k));
    numeric::fill_uniform(t.bias.data(), dtype::fp32, t.bias.size(), 4);
  }
  if (p.fusion.residual) t.residual = random_tensor(p, conv_tensor::output, 5);
  return t;
}

grouped_conv_args args_of(tensors& t) {
  grouped_conv_args a;
  a.in = t.in.data();
  a.wei = t.wei.data();
  a.out = t.out.data();
  a.bias = t.bias.empty() ? nullptr : t.bias.data();
  a.residual = t.residual.empty() ? nullptr : t.residual.data();
  return a;
}

// conv_hip_fwd_kernel's GEMMs: A im2col (k-contiguous), B the filter rows (k-contiguous), C the
// output's pixel rows; the fused epilogue's bias (leading dimension 0) and residual (C's offsets).
void run_fwd(const P& p, tensors& t, int vec) {
  const kernels::conv_gather_geometry geo = kernels::gather_geometry_of(p);
  const int kg = int(p.k_per_group());
  const int ldc = int(p.out_strides.spatial[2]);
  for (std::int64_t g = 0; g < p.g; ++g) {
    const operand a{t.in.data() + g * p.in_strides.g, vec, true};
    const operand b{t.wei.data() + g * p.wei_strides.g, vec, true};
    const hk::im2col_rows_source sa{&geo};
    const hk::filter_rows_source sb{kg, geo.k, p.wei_strides.n};
    for (int m = 0; m < geo.m; ++m)
      for (int n = 0; n < kg; ++n) {
        double v = dot(a, sa, b, sb, m, n, 0, geo.k);
        const std::int64_t at = g * p.out_strides.g + std::int64_t(m) * ldc + n;
        if (p.fusion.bias) v += t.bias[std::size_t(g * kg + n)];
        if (p.fusion.residual) v += t.residual[std::size_t(at)];
        if (p.fusion.act == elementwise::relu) v = std::max(v, 0.0);
        t.out[std::size_t(at)] = float(v);
      }
  }
}

// conv_hip_bwd_data_kernel's GEMMs, one per (group, stride phase): A dY gathered (k-contiguous),
// B the phase's weights (transposed: input channels contiguous), C the phase's dX pixels.
void run_bwd_data(const P& p, tensors& t, int vec, int& phases_without_taps) {
  const kernels::bwd_data_geometry geo = kernels::bwd_data_geometry_of(p);
  for (std::int64_t g = 0; g < p.g; ++g)
    for (int phase = 0; phase < geo.phases; ++phase) {
      const kernels::bwd_data_phase ph = kernels::phase_of(geo, phase);
      if (g == 0 && ph.gather.k == 0) ++phases_without_taps;
      const operand a{t.out.data() + g * p.out_strides.g, vec, true};
      const operand b{t.wei.data() + g * p.wei_strides.g, vec, false};
      const hk::im2col_rows_source sa{&ph.gather};
      const hk::phase_weights_source sb{&geo, &ph};
      const hk::phase_rows_map rows{&geo, &ph};
      for (int m = 0; m < ph.gather.m; ++m)
        for (int n = 0; n < geo.cg; ++n)
          t.in[std::size_t(g * p.in_strides.g + rows(m, 0) + n)] = float(dot(a, sa, b, sb, m, n, 0, ph.gather.k));
    }
}

// conv_hip_bwd_weight_kernel's GEMMs: A dY (transposed: output channels contiguous), B the input
// gathered (transposed: input channels contiguous), C dW; the depth cut into `splits` ranges of
// whole tile_k tiles, their partial sums added in split order (the partials kernel).
void run_bwd_weight(const P& p, tensors& t, int vec, int splits, int tile_k) {
  const kernels::conv_gather_geometry geo = kernels::gather_geometry_of(p);
  const auto out = p.output_dims();
  hk::dy_pixels_source sa{int(p.k_per_group()), geo.m, {}, p.out_strides.n, {}};
  for (int d = 0; d < 3; ++d) {
    sa.out[d] = int(out[std::size_t(d)]);
    sa.s[d] = p.out_strides.spatial[std::size_t(d)];
  }
  const hk::im2col_columns_source sb{&geo};
  const int tiles = (geo.m + tile_k - 1) / tile_k;
  int covered = 0;
  for (int s = 0; s < splits; ++s) {
    const hk::depth_range r = hk::depth_range_of(tiles, splits, s);
    EXPECT_EQ(r.first, covered) << "the ranges follow each other";
    EXPECT_LT(r.first, r.last) << "no empty range";
    covered = r.last;
  }
  EXPECT_EQ(covered, tiles);
  for (std::int64_t g = 0; g < p.g; ++g) {
    const operand a{t.out.data() + g * p.out_strides.g, vec, false};
    const operand b{t.in.data() + g * p.in_strides.g, vec, false};
    for (int m = 0; m < sa.kg; ++m)
      for (int n = 0; n < geo.k; ++n) {
        float sum = 0.0f;  // the partials are fp32, added in split order
        for (int s = 0; s < splits; ++s) {
          const hk::depth_range r = hk::depth_range_of(tiles, splits, s);
          sum += float(dot(a, sa, b, sb, m, n, r.first * tile_k, std::min(r.last * tile_k, geo.m)));
        }
        t.wei[std::size_t(g * p.wei_strides.g + std::int64_t(m) * p.wei_strides.n + n)] = sum;
      }
  }
}

constexpr grouped_conv_key hip_key(conv_direction d, dtype t, int vec) {
  grouped_conv_key k;
  k.sig.dir = d;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = t;
  k.sig.acc = dtype::fp32;
  k.algo.tile = {128, 128, 32};
  k.algo.warps = {2, 2, 1};
  k.algo.warp_tile = {32, 32, 16};
  k.algo.pipe = d == conv_direction::fwd ? pipeline::compv4 : pipeline::compv3;
  k.algo.stages = d == conv_direction::fwd ? 2 : 1;
  k.algo.epi = epilogue::cshuffle;
  k.algo.sched = scheduler::intrawave;
  k.algo.arch = arch_id::gfx942;
  k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = vec;
  return k;
}

// The HIP key of a problem's signature in fp32 with `vec`-element vectors (the sets' fp32 shape).
grouped_conv_key fp32_key(const P& p, int vec) {
  grouped_conv_key k = hip_key(p.dir, dtype::fp32, vec);
  k.sig.ndim = p.ndim();
  k.sig.lay = *p.lay;
  k.sig.fuse = p.fusion;
  k.algo.tile = {64, 64, 16};
  k.algo.warp_tile = {16, 16, 4};
  k.algo.pipe = pipeline::compv3;
  k.algo.stages = 1;
  return k;
}

void check(P problem, int vec, int splits = 1) {
  const P p = problem.dtype(dtype::fp32).normalized();
  ASSERT_FALSE(p.validate()) << p.validate().value_or("");
  tensors t = make_tensors(p);
  const grouped_conv_args a = args_of(t);
  // A problem the kernel takes (its why_not), emulated as it would run.
  const grouped_conv_key k = fp32_key(p, vec);
  ASSERT_EQ(hk::conv_hip_unsupported_reason(k), nullptr) << hk::conv_hip_unsupported_reason(k);
  const auto refused = hk::conv_hip_problem_reason(k, p, a);
  ASSERT_FALSE(refused) << *refused;
  int phases_without_taps = 0;
  switch (p.dir) {
    case conv_direction::fwd: run_fwd(p, t, vec); break;
    case conv_direction::bwd_data: run_bwd_data(p, t, vec, phases_without_taps); break;
    case conv_direction::bwd_weight: run_bwd_weight(p, t, vec, splits, 32); break;
  }
  const std::vector<double> ref = reference::grouped_conv(p, a);
  const double err = reference::relative_error(p, t.result(p).data(), ref);
  EXPECT_LE(err, 1e-5) << "direction " << int(p.dir) << ", NaN: an element never written";
}

std::vector<P> problems() {
  return {
      P{}.batch(2).channels(8, 12).input_size({9, 10}).filter_size({3}).padding({1}),  // 3x3 stride 1
      P{}.batch(2).channels(8, 12).input_size({11, 9}).filter_size({3}).stride({2}).padding({1}),  // ResNet's 3x3 s2
      P{}.batch(1).channels(4, 8).input_size({15, 13}).filter_size({7}).stride({2}).padding({3}),  // a stem
      P{}.batch(2).channels(6, 10).input_size({9, 8}).filter_size({1}).stride({2}),  // 1x1 s2: three phases zero
      P{}.batch(1).channels(6, 8).input_size({13, 11}).filter_size({3}).stride({2}).dilation({3}),  // dilation > stride
      P{}.batch(1).channels(4, 6).input_size({14, 13}).filter_size({5, 4}).stride({3, 2}).padding({2, 1}, {0, 2}),
      P{}.batch(2).channels(4, 4).input_size({19}).filter_size({3}).stride({4}).padding({1}),  // 1-D, filter < stride
      P{}.batch(1).channels(8, 12).groups(2).input_size({5, 6, 7}).filter_size({3}).stride({2, 1, 2}).padding({1}),
      P{}.batch(3).channels(8, 8).groups(4).input_size({10, 9}).filter_size({3}).stride({2}).padding({1}),
      P{}.batch(2).channels(4, 8).groups(2).input_size({9, 7}).filter_size({3}).stride({1, 2}).padding({1})
          .layout(conv_layout::gnhwc),  // group-major
      P{}.batch(1).channels(4, 6).input_size({8, 8}).filter_size({4}).stride({4}),  // patch embedding
  };
}

P with_direction(P p, conv_direction d) { return p.direction(d); }

TEST(ConvHipOperands, ForwardMatchesTheReference) {
  for (const P& p : problems()) check(with_direction(p, conv_direction::fwd), 2);
  // Padded input rows and images, 4-element vectors. (The output's pixels are C's rows, evenly
  // strided: a padded output is refused, and says so.)
  P padded = P{}.batch(2).channels(8, 8).input_size({7, 6}).filter_size({3}).padding({1});
  conv_tensor_strides s;
  s.spatial = {0, 6 * 12, 12};
  s.n = 7 * 6 * 12 + 8;
  padded.in_strides = s;
  check(padded, 4);
  padded.out_strides = s;
  const P q = padded.dtype(dtype::fp32).normalized();
  tensors t = make_tensors(q);
  EXPECT_NE(hk::conv_hip_problem_reason(fp32_key(q, 4), q, args_of(t)).value_or("").find("evenly strided"),
            std::string::npos);
}

TEST(ConvHipOperands, FusedForwardMatchesTheReference) {
  for (conv_fusion f : {conv_fusion{.act = elementwise::relu, .bias = true},
                        conv_fusion{.act = elementwise::relu, .bias = true, .residual = true}})
    for (const P& p : {problems()[1], problems()[7]}) check(with_direction(p, conv_direction::fwd).fuse(f), 2);
}

TEST(ConvHipOperands, BackwardDataMatchesTheReferenceInEveryStridePhase) {
  for (const P& p : problems()) check(with_direction(p, conv_direction::bwd_data), 2);
}

TEST(ConvHipOperands, BackwardWeightMatchesTheReferenceWithTheDepthSplit) {
  for (const P& p : problems())
    for (int splits : {1, 2, 3}) {
      const P q = with_direction(p, conv_direction::bwd_weight).normalized();
      const int tiles = int((q.n * q.output_pixels() + 31) / 32);
      if (splits <= tiles) check(q, 2, splits);
    }
}

// ---- the problem rules ---------------------------------------------------------------------


static_assert(hk::conv_hip_unsupported_reason(hip_key(conv_direction::fwd, dtype::bf16, 8)) == nullptr);
static_assert(hk::conv_hip_unsupported_reason(hip_key(conv_direction::bwd_data, dtype::fp16, 8)) == nullptr);
static_assert(hk::conv_hip_unsupported_reason(hip_key(conv_direction::bwd_weight, dtype::bf16, 8)) == nullptr);
static_assert(hk::conv_hip_unsupported_reason(hip_key(conv_direction::fwd, dtype::bf16, 1)) != nullptr,
              "2-byte vectors are not HIP conv widths");

TEST(ConvHipRules, RefusalsNameTheRule) {
  alignas(16) static std::uint16_t buffer[1 << 16];
  grouped_conv_args a;
  a.in = a.wei = a.out = buffer;
  for (conv_direction d : {conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight}) {
    const grouped_conv_key k = hip_key(d, dtype::bf16, 8);
    const P ok = P{}.direction(d).batch(2).channels(16, 32).input_size({9, 9}).filter_size({3}).stride({2})
                     .padding({1}).dtype(dtype::bf16).normalized();
    EXPECT_FALSE(hk::conv_hip_problem_reason(k, ok, a)) << *hk::conv_hip_problem_reason(k, ok, a);
    const P narrow = P{}.direction(d).batch(2).channels(12, 20).input_size({9, 9}).filter_size({3}).padding({1})
                         .dtype(dtype::bf16).normalized();  // C/G and K/G not multiples of 8
    const auto why = hk::conv_hip_problem_reason(k, narrow, a);
    ASSERT_TRUE(why);
    EXPECT_NE(why->find("multiple"), std::string::npos) << *why;
    grouped_conv_args shifted = a;
    (d == conv_direction::bwd_weight ? shifted.in : shifted.out) = buffer + 1;  // a gathered operand off its vector
    const auto why_shifted = hk::conv_hip_problem_reason(k, ok, shifted);
    ASSERT_TRUE(why_shifted);
    EXPECT_NE(why_shifted->find("aligned"), std::string::npos) << *why_shifted;
  }
  const P other = P{}.batch(1).channels(16, 16).input_size({8, 8}).filter_size({3}).dtype(dtype::fp16).normalized();
  EXPECT_EQ(hk::conv_hip_problem_reason(hip_key(conv_direction::fwd, dtype::bf16, 8), other, a).value_or(""),
            "problem signature differs from the kernel's");
}

}  // namespace
}  // namespace kdecl
