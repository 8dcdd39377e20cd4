// The host convolution kernels against the double reference: every direction
// on odd problems (stems, large strided filters, dilation, asymmetric
// padding, 1x1 stride 2, odd sizes, G = 2, 32 and C, 1-D and 3-D, group-major
// layouts and padded strides), random data, the result poisoned first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kdecl/kernels/conv/host/conv_kernel.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/numeric/tf32.hpp"
#include "kdecl/reference/conv_reference.hpp"

namespace kdecl {
namespace {

constexpr grouped_conv_key host_key(conv_direction dir, int ndim, conv_layout lay, dtype d, mnk tile = {64, 64, 256},
                                    mnk micro = {8, 8, 1}) {
  grouped_conv_key k;
  k.sig.dir = dir;
  k.sig.ndim = ndim;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = d;
  k.sig.acc = dtype::fp32;
  k.sig.lay = lay;
  k.algo.tile = tile;
  k.algo.warps = {1, 1, 1};
  k.algo.warp_tile = micro;
  k.algo.pipe = pipeline::host_blocked;
  k.algo.stages = 1;
  k.algo.epi = epilogue::direct;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = 1;
  k.algo.arch = arch_id::host;
  return k;
}

constexpr grouped_conv_key with_compute(grouped_conv_key k, dtype compute) {
  k.sig.compute = compute;
  return k;
}

struct tensors {
  std::vector<unsigned char> in, wei, out;
  grouped_conv_args args() { return {in.data(), wei.data(), out.data()}; }
  std::vector<unsigned char>& of(conv_tensor t) { return t == conv_tensor::input ? in : t == conv_tensor::weight ? wei : out; }
};

// Random operands; the result tensor's whole span poisoned (NaN).
tensors make_tensors(const grouped_conv_problem& p, std::uint64_t seed) {
  tensors t;
  for (conv_tensor which : {conv_tensor::input, conv_tensor::weight, conv_tensor::output}) {
    const auto n = std::size_t(p.span(which));
    auto& bytes = t.of(which);
    bytes.resize(n * dtype_size_bytes(p.dtype_of(which)));
    numeric::fill_uniform(bytes.data(), p.dtype_of(which), n, seed++);
  }
  return t;
}

struct outcome {
  double error = std::numeric_limits<double>::quiet_NaN();
  double tolerance = 0;
  std::vector<unsigned char> result;
};

template <grouped_conv_key K>
outcome run_host(const grouped_conv_problem& problem, std::uint64_t seed, bool workspace = true) {
  using kernel = kernels::conv_kernel<K, backend::host>;
  const grouped_conv_problem p = problem.normalized();
  EXPECT_FALSE(p.validate()) << p.validate().value_or("");
  tensors t = make_tensors(p, seed);
  auto args = t.args();
  const auto ref = reference::grouped_conv(p, args);
  auto& result = t.of(p.result());
  numeric::poison(result.data(), p.dtype_of(p.result()), std::size_t(p.span(p.result())));
  std::vector<unsigned char> ws(workspace ? kernel::workspace_bytes(p) : 0, 0xFF);  // poisoned: must be initialised
  args.workspace = ws.empty() ? nullptr : ws.data();
  args.workspace_bytes = ws.size();
  const status st = kernel::run(p, args, nullptr);
  EXPECT_TRUE(st.is_ok()) << st.message();
  outcome o;
  o.error = reference::relative_error(p, result.data(), ref);
  o.tolerance = reference::tolerance(p);
  o.result = result;
  return o;
}

// The odd problems every direction runs on (2-D, channels-last unless noted).
std::vector<grouped_conv_problem> odd_problems_2d() {
  using P = grouped_conv_problem;
  return {
      P{}.batch(1).channels(3, 16).input_size({23, 21}).filter_size({7}).stride({2}).padding({3}),   // stem
      P{}.batch(3).channels(8, 12).input_size({11, 9}).filter_size({3}).dilation({2}).padding({2}),   // dilation 2
      P{}.batch(2).channels(5, 7).input_size({13, 10}).filter_size({3}).stride({2}).padding({0, 1}, {1, 2}),
      P{}.batch(3).channels(16, 24).input_size({9, 9}).filter_size({1}).stride({2}),                  // 1x1 stride 2
      P{}.batch(1).channels(6, 10).groups(2).input_size({7, 5}).filter_size({3}).padding({1}),         // G = 2
      P{}.batch(2).channels(64, 64).groups(32).input_size({6, 7}).filter_size({3}).padding({1}),       // G = 32
      P{}.batch(3).channels(24, 24).groups(24).input_size({9, 11}).filter_size({3}).stride({2}).padding({1}),  // G = C
      P{}.batch(1).channels(20, 20).groups(20).input_size({10, 13}).filter_size({5}).padding({2}),     // depthwise 5x5
      P{}.batch(2).channels(9, 33).input_size({5, 6}).filter_size({2, 3}).stride({3, 1}).padding({1, 0}),
  };
}

template <conv_direction Dir, dtype D>
void check_2d_problems() {
  constexpr auto key = host_key(Dir, 2, conv_layout::nhwgc, D);
  int i = 0;
  for (auto p : odd_problems_2d()) {
    p.direction(Dir).dtype(D);
    const outcome o = run_host<key>(p, 100 + i++);
    EXPECT_LE(o.error, o.tolerance) << p.describe();
  }
}

TEST(HostConv, ForwardFp32) { check_2d_problems<conv_direction::fwd, dtype::fp32>(); }

// tf32 compute rounds every operand to tf32 before the multiply (cvt.rna, what the GPU
// kernels do): inputs of 1 + 2^-12 (between two tf32 values, nearer 1) times weights of 1
// sum to exactly the tap count in tf32 and to taps x (1 + 2^-12) exactly, in every direction.
TEST(HostConv, Tf32RoundsTheOperands) {
  const float off_grid = 1.0f + 0x1p-12f;
  ASSERT_EQ(round_to_tf32(off_grid), 1.0f);
  auto run = [&]<conv_direction Dir, dtype Compute>() {
    constexpr grouped_conv_key key = with_compute(host_key(Dir, 2, conv_layout::nhwgc, dtype::fp32), Compute);
    using kernel = kernels::conv_kernel<key, backend::host>;
    // 1x1 filter, C = 8 (the reduction of fwd and bwd_data), 4x4 pixels x N = 2 (bwd_weight's).
    auto p = grouped_conv_problem{}.direction(Dir).batch(2).channels(8, 8).input_size({4, 4}).filter_size({1})
                 .dtype(dtype::fp32);
    p.compute(Compute);
    p = p.normalized();
    EXPECT_FALSE(p.validate()) << p.validate().value_or("");
    std::vector<float> in(std::size_t(p.span(conv_tensor::input)), off_grid);
    std::vector<float> wei(std::size_t(p.span(conv_tensor::weight)), off_grid);
    std::vector<float> out(std::size_t(p.span(conv_tensor::output)), off_grid);
    auto& result = Dir == conv_direction::fwd ? out : Dir == conv_direction::bwd_data ? in : wei;
    std::fill(result.begin(), result.end(), std::numeric_limits<float>::quiet_NaN());
    std::vector<unsigned char> ws(kernel::workspace_bytes(p));
    grouped_conv_args a{in.data(), wei.data(), out.data(), ws.empty() ? nullptr : ws.data(), ws.size()};
    ASSERT_TRUE(kernel::run(p, a, nullptr).is_ok());
    const double depth = double(p.implicit_gemm().k);
    const double want = Compute == dtype::tf32 ? depth : depth * double(off_grid) * double(off_grid);
    for (float v : result) ASSERT_NEAR(v, want, depth * 1e-6) << to_string(Dir) << " " << to_string(Compute);
  };
  run.template operator()<conv_direction::fwd, dtype::tf32>();
  run.template operator()<conv_direction::bwd_data, dtype::tf32>();
  run.template operator()<conv_direction::bwd_weight, dtype::tf32>();
  run.template operator()<conv_direction::fwd, dtype::fp32>();
  run.template operator()<conv_direction::bwd_weight, dtype::fp32>();
}
TEST(HostConv, ForwardFp16) { check_2d_problems<conv_direction::fwd, dtype::fp16>(); }
TEST(HostConv, ForwardBf16) { check_2d_problems<conv_direction::fwd, dtype::bf16>(); }
TEST(HostConv, BackwardDataFp32) { check_2d_problems<conv_direction::bwd_data, dtype::fp32>(); }
TEST(HostConv, BackwardDataBf16) { check_2d_problems<conv_direction::bwd_data, dtype::bf16>(); }
TEST(HostConv, BackwardWeightFp32) { check_2d_problems<conv_direction::bwd_weight, dtype::fp32>(); }
TEST(HostConv, BackwardWeightFp16) { check_2d_problems<conv_direction::bwd_weight, dtype::fp16>(); }

template <conv_direction Dir>
void check_1d_and_3d() {
  {
    constexpr auto key = host_key(Dir, 1, conv_layout::nwgc, dtype::fp32);
    auto p = grouped_conv_problem{}.direction(Dir).batch(2).channels(5, 7).input_size({31}).filter_size({5})
                 .stride({3}).dilation({2}).padding({4}, {1}).dtype(dtype::fp32);
    const outcome o = run_host<key>(p, 7);
    EXPECT_LE(o.error, o.tolerance) << p.describe();
  }
  {
    constexpr auto key = host_key(Dir, 3, conv_layout::ndhwgc, dtype::fp32);
    auto p = grouped_conv_problem{}.direction(Dir).batch(2).channels(4, 6).input_size({5, 6, 7}).filter_size({3})
                 .stride({1, 2, 2}).padding({1}).dtype(dtype::fp32);
    const outcome o = run_host<key>(p, 8);
    EXPECT_LE(o.error, o.tolerance) << p.describe();
    auto g = grouped_conv_problem{}.direction(Dir).batch(1).channels(6, 9).groups(3).input_size({4, 5, 3})
                 .filter_size({3, 1, 3}).dilation({1, 1, 2}).padding({1, 0, 2}).dtype(dtype::fp32);
    const outcome og = run_host<key>(g, 9);
    EXPECT_LE(og.error, og.tolerance) << g.describe();
  }
  {  // group-major layout, G = 3
    constexpr auto key = host_key(Dir, 2, conv_layout::gnhwc, dtype::bf16);
    auto p = grouped_conv_problem{}.direction(Dir).batch(3).channels(9, 6).groups(3).input_size({7, 8})
                 .filter_size({3}).stride({2}).padding({1}).layout(conv_layout::gnhwc).dtype(dtype::bf16);
    const outcome o = run_host<key>(p, 10);
    EXPECT_LE(o.error, o.tolerance) << p.describe();
  }
}

TEST(HostConv, OneDThreeDAndGroupMajorForward) { check_1d_and_3d<conv_direction::fwd>(); }
TEST(HostConv, OneDThreeDAndGroupMajorBackwardData) { check_1d_and_3d<conv_direction::bwd_data>(); }
TEST(HostConv, OneDThreeDAndGroupMajorBackwardWeight) { check_1d_and_3d<conv_direction::bwd_weight>(); }

// Padded rows and images in every tensor: the kernel honours strides, and what
// lies between the rows stays untouched (poisoned).
template <conv_direction Dir>
void check_padded_strides() {
  constexpr auto key = host_key(Dir, 2, conv_layout::nhwgc, dtype::fp32);
  auto p = grouped_conv_problem{}.direction(Dir).batch(2).channels(6, 4).groups(2).input_size({5, 7})
               .filter_size({3}).padding({1}).dtype(dtype::fp32);
  conv_tensor_strides si, sw, so;
  si.spatial[2] = 8;       // pixels of 6 channels padded to 8
  si.n = 5 * 7 * 8 + 3;    // images padded
  sw.n = 3 * 3 * 3 + 1;    // each output channel's filter padded by one
  so.spatial[1] = 7 * 4 + 5;
  p.input_strides(si).weight_strides(sw).output_strides(so);
  const outcome o = run_host<key>(p, 11);
  EXPECT_LE(o.error, o.tolerance) << p.describe();
  // Count the result elements still poisoned: exactly the gaps.
  const auto np = p.normalized();
  const auto* r = reinterpret_cast<const float*>(o.result.data());
  std::int64_t nan = 0;
  for (std::int64_t i = 0; i < np.span(np.result()); ++i) nan += std::isnan(r[i]);
  EXPECT_EQ(nan, np.span(np.result()) - np.elements(np.result()));
}

TEST(HostConv, PaddedStridesForward) { check_padded_strides<conv_direction::fwd>(); }
TEST(HostConv, PaddedStridesBackwardData) { check_padded_strides<conv_direction::bwd_data>(); }
TEST(HostConv, PaddedStridesBackwardWeight) { check_padded_strides<conv_direction::bwd_weight>(); }

// bwd_data with a stride the filter does not cover: phases with no tap write zeros.
TEST(HostConv, BackwardDataWritesZerosWhereNoTapReaches) {
  constexpr auto key = host_key(conv_direction::bwd_data, 2, conv_layout::nhwgc, dtype::fp32);
  auto p = grouped_conv_problem{}.direction(conv_direction::bwd_data).batch(2).channels(3, 5).input_size({9, 10})
               .filter_size({1}).stride({3, 2}).dtype(dtype::fp32);
  const outcome o = run_host<key>(p, 12);
  EXPECT_LE(o.error, o.tolerance) << p.describe();
}

// The depth-split bwd_weight: equal to the reference, and bit-identical run to run.
TEST(HostConv, BackwardWeightSplitsDeterministically) {
  constexpr auto key = host_key(conv_direction::bwd_weight, 2, conv_layout::nhwgc, dtype::fp32, {32, 128, 256}, {4, 16, 1});
  using kernel = kernels::conv_kernel<key, backend::host>;
  auto p = grouped_conv_problem{}.direction(conv_direction::bwd_weight).batch(2).channels(8, 8).input_size({65, 64})
               .filter_size({3}).padding({1}).dtype(dtype::fp32);
  ASSERT_GT(kernel::workspace_bytes(p.normalized()), 0u);
  const outcome a = run_host<key>(p, 13), b = run_host<key>(p, 13), without = run_host<key>(p, 13, false);
  EXPECT_LE(a.error, a.tolerance);
  EXPECT_LE(without.error, without.tolerance);
  EXPECT_EQ(a.result, b.result);
}

// A NaN in the data reaches the result and fails the check; so does a result never written.
TEST(HostConv, NanNeverPasses) {
  constexpr auto key = host_key(conv_direction::fwd, 2, conv_layout::nhwgc, dtype::fp32);
  auto p = grouped_conv_problem{}.batch(1).channels(4, 4).input_size({5, 5}).filter_size({3}).padding({1})
               .dtype(dtype::fp32).normalized();
  tensors t = make_tensors(p, 14);
  auto args = t.args();
  const auto ref = reference::grouped_conv(p, args);
  numeric::poison(t.out.data(), dtype::fp32, std::size_t(p.span(conv_tensor::output)));
  EXPECT_FALSE(reference::passes(reference::relative_error(p, t.out.data(), ref), 1.0));  // never written
  reinterpret_cast<float*>(t.in.data())[7] = std::numeric_limits<float>::quiet_NaN();
  using kernel = kernels::conv_kernel<key, backend::host>;
  ASSERT_TRUE(kernel::run(p, args, nullptr).is_ok());
  const double e = reference::relative_error(p, t.out.data(), ref);
  EXPECT_TRUE(std::isnan(e));
  EXPECT_FALSE(reference::passes(e, 1.0));
}

TEST(HostConv, RefusesWhatItCannotRun) {
  constexpr auto key = host_key(conv_direction::fwd, 2, conv_layout::nhwgc, dtype::fp16);
  using kernel = kernels::conv_kernel<key, backend::host>;
  auto p = grouped_conv_problem{}.batch(1).channels(4, 4).input_size({5, 5}).filter_size({3}).dtype(dtype::fp16)
               .normalized();
  alignas(16) static unsigned char buf[4096];
  EXPECT_FALSE(kernel::why_not(p, {buf, buf, buf}));
  EXPECT_EQ(kernel::why_not(p, {buf, nullptr, buf}).value_or(""), "a tensor pointer (in, wei or out) is null");
  EXPECT_EQ(kernel::why_not(grouped_conv_problem(p).dtype(dtype::bf16), {buf, buf, buf}).value_or(""),
            "problem signature differs from the kernel's");
  EXPECT_EQ(kernel::why_not(grouped_conv_problem(p).direction(conv_direction::bwd_data), {buf, buf, buf}).value_or(""),
            "problem signature differs from the kernel's");
}

}  // namespace
}  // namespace kdecl
