// The fused forward epilogue of a convolution, out = act(conv + bias + residual)
// (grouped_conv_key.hpp conv_fusion): problem validation, names, the reference
// against the composition it defines, the host kernel (fusion compiled in, or read
// from the problem at run time) against the reference, and the DSL's rules.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kdecl/conv/conv_dispatcher.hpp"
#include "kdecl/conv/grouped_conv_name.hpp"
#include "kdecl/dsl/dsl.hpp"
#include "kdecl/kernels/conv/host/conv_kernel.hpp"
#include "kdecl/numeric/fill.hpp"
#include "kdecl/reference/conv_reference.hpp"

namespace kdecl {
namespace {

grouped_conv_problem layer(dtype d = dtype::fp32) {
  return grouped_conv_problem{}.batch(2).channels(6, 10).groups(2).input_size({9, 7}).filter_size({3}).stride({2, 1})
      .padding({1, 0}, {1, 2}).dtype(d);
}

TEST(ConvFusion, ProblemValidationNamesTheRule) {
  EXPECT_FALSE(layer().bias().residual().activation(elementwise::gelu).validate());
  auto backward = layer().direction(conv_direction::bwd_data).bias();
  ASSERT_TRUE(backward.validate());
  EXPECT_NE(backward.validate()->find("a fused epilogue (bias) is for forward convolutions only; the direction is "
                                      "bwd_data"),
            std::string::npos)
      << *backward.validate();
  auto sum = layer().activation(elementwise::multi_d_add);
  ASSERT_TRUE(sum.validate());
  EXPECT_NE(sum.validate()->find("activation multi_d_add is not one a convolution epilogue applies"),
            std::string::npos);
  auto dynamic = layer().fuse(conv_fusion{.dynamic = true});
  ASSERT_TRUE(dynamic.validate());
  EXPECT_NE(dynamic.validate()->find("fusion.dynamic is a kernel property"), std::string::npos);
  EXPECT_EQ(describe(conv_fusion{.act = elementwise::relu, .bias = true, .residual = true}),
            "bias + residual, then relu");
  EXPECT_EQ(describe(conv_fusion{.act = elementwise::tanh}), "tanh");
  EXPECT_EQ(describe(conv_fusion{}), "none");
  EXPECT_NE(layer().bias().activation(elementwise::relu).describe().find("fused bias, then relu"), std::string::npos);
  // The bias and residual are memory the epilogue reads.
  const auto p = layer(dtype::bf16);
  EXPECT_DOUBLE_EQ(layer(dtype::bf16).bias().bytes() - p.bytes(), 10 * 2);
  EXPECT_DOUBLE_EQ(layer(dtype::bf16).residual().bytes() - p.bytes(),
                   double(p.normalized().elements(conv_tensor::output)) * 2);
}

constexpr grouped_conv_key host_fwd_key(dtype d, conv_fusion f) {
  grouped_conv_key k;
  k.sig.in = k.sig.wei = k.sig.out = k.sig.compute = d;
  k.sig.acc = dtype::fp32;
  k.sig.fuse = f;
  k.algo.tile = {16, 16, 32};  // small blocks: several tiles per group, partial ones at the edges
  k.algo.warps = {1, 1, 1};
  k.algo.warp_tile = {4, 8, 1};
  k.algo.pipe = pipeline::host_blocked;
  k.algo.stages = 1;
  k.algo.epi = epilogue::direct;
  k.algo.sched = scheduler::intrawave;
  k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = 1;
  return k;
}

TEST(ConvFusion, KernelNamesCarryTheFusionAndParseBack) {
  grouped_conv_key k = host_fwd_key(dtype::bf16, {});
  for (conv_fusion f : {conv_fusion{.act = elementwise::relu, .bias = true},
                        conv_fusion{.act = elementwise::gelu, .bias = true, .residual = true},
                        conv_fusion{.residual = true}, conv_fusion{.act = elementwise::sigmoid},
                        conv_fusion{.dynamic = true}}) {
    k.sig.fuse = f;
    const std::string name = kernel_name(k);
    EXPECT_EQ(parse_conv_name(name), k) << name;
  }
  k.sig.fuse = {.act = elementwise::relu, .bias = true, .residual = true};
  const std::string name = kernel_name(k);
  EXPECT_NE(name.find("_nhwgc_fused-bias-residual-relu_host_blocked_"), std::string::npos) << name;
  for (const char* bad : {"fused-relu-bias", "fused-bias-bias", "fused", "fused-multi", "fused-dynamic-relu"}) {
    std::string wrong = name;
    wrong.replace(wrong.find("fused-bias-residual-relu"), std::strlen("fused-bias-residual-relu"), bad);
    EXPECT_THROW(parse_conv_name(wrong), std::invalid_argument) << wrong;
  }
}

// Host tensors of a problem, random, in its dtypes.
struct tensors {
  std::vector<unsigned char> in, wei, out, bias, residual;
  explicit tensors(const grouped_conv_problem& p, std::uint64_t seed) {
    auto fill = [&](std::vector<unsigned char>& v, dtype d, std::int64_t n, std::uint64_t s) {
      v.resize(std::size_t(n) * dtype_size_bytes(d));
      numeric::fill_uniform(v.data(), d, std::size_t(n), s);
    };
    fill(in, p.in_type, p.span(conv_tensor::input), seed);
    fill(wei, p.wei_type, p.span(conv_tensor::weight), seed + 1);
    fill(out, p.out_type, p.span(conv_tensor::output), seed + 2);
    fill(bias, p.out_type, p.k, seed + 3);
    fill(residual, p.out_type, p.span(conv_tensor::output), seed + 4);
  }
  grouped_conv_args args() {
    grouped_conv_args a{in.data(), wei.data(), out.data()};
    a.bias = bias.data();
    a.residual = residual.data();
    return a;
  }
};

// The reference's fused result is the plain convolution plus bias and residual, through the activation.
TEST(ConvFusion, ReferenceIsTheComposition) {
  for (auto act : {elementwise::pass_through, elementwise::relu, elementwise::gelu, elementwise::sigmoid,
                   elementwise::tanh}) {
    const auto plain = layer().normalized();
    const auto fused = layer().bias().residual().activation(act).normalized();
    tensors t(plain, 5);
    const auto conv = reference::grouped_conv(plain, t.args());
    const auto got = reference::grouped_conv(fused, t.args());
    const auto res = reference::gather_result(plain, t.residual.data());
    const auto* bias = reinterpret_cast<const float*>(t.bias.data());
    ASSERT_EQ(got.size(), conv.size());
    const std::int64_t k = plain.k;  // logical order: channels (g, k) innermost
    for (std::size_t i = 0; i < got.size(); ++i) {
      const double x = conv[i] + bias[i % std::size_t(k)] + res[i];
      const double want = act == elementwise::relu      ? std::max(x, 0.0)
                          : act == elementwise::gelu    ? 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)))
                          : act == elementwise::sigmoid ? 1 / (1 + std::exp(-x))
                          : act == elementwise::tanh    ? std::tanh(x)
                                                        : x;
      ASSERT_NEAR(got[i], want, 1e-12 * (1 + std::abs(want))) << to_string(act) << " at " << i;
    }
  }
}


template <grouped_conv_key K>
void expect_matches(const grouped_conv_problem& problem, bool in_place) {
  using kernel = kernels::conv_kernel<K, backend::host>;
  const auto p = problem.normalized();
  tensors t(p, 11);
  grouped_conv_args a = t.args();
  if (in_place) {  // the residual is the output itself: read before it is written
    t.out = t.residual;
    a.out = t.out.data();
    a.residual = t.out.data();
  }
  const auto ref = reference::grouped_conv(p, tensors(t).args());  // residual values as they were
  ASSERT_FALSE(kernel::why_not(p, a)) << *kernel::why_not(p, a);
  ASSERT_TRUE(kernel::run(p, a, nullptr));
  const double err = reference::relative_error(p, t.out.data(), ref);
  EXPECT_TRUE(reference::passes(err, reference::tolerance(p))) << p.describe() << ": error " << err;
}

TEST(ConvFusion, HostKernelMatchesTheReference) {
  constexpr conv_fusion bias_relu{.act = elementwise::relu, .bias = true};
  constexpr conv_fusion all_gelu{.act = elementwise::gelu, .bias = true, .residual = true};
  expect_matches<host_fwd_key(dtype::fp32, bias_relu)>(layer().fuse(bias_relu), false);
  expect_matches<host_fwd_key(dtype::bf16, all_gelu)>(layer(dtype::bf16).fuse(all_gelu), false);
  expect_matches<host_fwd_key(dtype::bf16, all_gelu)>(layer(dtype::bf16).fuse(all_gelu), true);
  // One kernel reading the fusion at run time, for each fusion and none.
  constexpr auto dynamic = host_fwd_key(dtype::fp16, {.dynamic = true});
  for (conv_fusion f : {conv_fusion{}, bias_relu, all_gelu, conv_fusion{.act = elementwise::tanh, .residual = true}})
    expect_matches<dynamic>(layer(dtype::fp16).fuse(f), f.residual);
}

// No registered kernel compiles the fusion in: the dispatcher runs the plain kernel and the host
// epilogue pass (kernels/conv/host/epilogue_pass.hpp), the residual a tensor of its own or the
// output itself (then the plain result goes to the lent workspace first); padded output strides
// and groups walk the pass's row map.
TEST(ConvFusion, ComposedEpilogueOnAPlainKernelMatchesTheReference) {
  registry reg;
  reg.add(std::make_shared<conv_instance_of<host_fwd_key(dtype::bf16, {}), backend::host>>(), "plain");
  constexpr grouped_conv_key plain_3d = [] {
    grouped_conv_key k = host_fwd_key(dtype::fp32, {});
    k.sig.ndim = 3;
    k.sig.lay = conv_layout::ndhwgc;
    return k;
  }();
  reg.add(std::make_shared<conv_instance_of<plain_3d, backend::host>>(), "plain");
  const conv_dispatcher d(device{arch_id::host, 0, "host"}, reg);
  grouped_conv_problem grouped = grouped_conv_problem{}.batch(2).channels(12, 18).groups(3).input_size({5, 6, 7})
                                     .filter_size({3}).stride({1, 2, 1}).padding({1});
  conv_tensor_strides padded;
  padded.spatial = {0, 7 * 24, 24};
  padded.n = 5 * 3 * 7 * 24 + 6;  // output 5 x 3 x 7 pixels of 24 (18 channels and 6 of padding)
  grouped.out_strides = padded;
  int runs = 0;
  for (const auto& [problem, in_place] : {std::pair{layer(dtype::bf16).bias().residual().activation(elementwise::gelu),
                                                    false},
                                          {layer(dtype::bf16).bias().residual().activation(elementwise::relu), true},
                                          {grouped.dtype(dtype::fp32).bias().activation(elementwise::sigmoid), false},
                                          {grouped.dtype(dtype::fp32).residual().activation(elementwise::tanh), true}}) {
    const auto p = problem.normalized();
    tensors t(p, 17);
    grouped_conv_args a = t.args();
    if (in_place) {
      t.out = t.residual;
      a.out = t.out.data();
      a.residual = t.out.data();
    }
    const auto ref = reference::grouped_conv(p, tensors(t).args());
    const auto sel = d.select(p, &a);
    ASSERT_TRUE(sel.composed_epilogue) << sel.explain();
    ASSERT_TRUE(d.run(p, a)) << p.describe();
    const double err = reference::relative_error(p, t.out.data(), ref);
    EXPECT_TRUE(reference::passes(err, reference::tolerance(p))) << p.describe() << ": error " << err;
    ++runs;
  }
  EXPECT_EQ(runs, 4);
}

TEST(ConvFusion, KernelsRefuseWhatTheyDoNotFuse) {
  using fixed = kernels::conv_kernel<host_fwd_key(dtype::fp32, {.act = elementwise::relu, .bias = true}),
                                     backend::host>;
  const auto plain = layer().normalized();
  tensors t(plain, 3);
  EXPECT_TRUE(fixed::why_not(plain, t.args()));  // a bias + relu kernel does not compute a plain convolution
  auto a = t.args();
  a.bias = nullptr;
  const auto fused = layer().bias().activation(elementwise::relu).normalized();
  ASSERT_TRUE(fixed::why_not(fused, a));
  EXPECT_EQ(*fixed::why_not(fused, a), "the fused epilogue's bias pointer is null");
  EXPECT_FALSE(fixed::why_not(fused, t.args()));
}

// The tables' rules (validate) on keys the declarations would expand to.
TEST(ConvFusion, DslRules) {
  auto key = [](arch_id arch, pipeline pipe, conv_fusion f) {
    grouped_conv_key k = host_fwd_key(dtype::bf16, f);
    k.algo.pipe = pipe;
    k.algo.arch = arch;
    if (pipe == pipeline::tma_wgmma) {
      k.algo.tile = {128, 128, 64};
      k.algo.warps = {8, 1, 1};
      k.algo.warp_tile = {16, 128, 16};
      k.algo.stages = 6;
      k.algo.epi = epilogue::cshuffle;
      k.algo.vector_in = k.algo.vector_wei = k.algo.vector_out = 8;
    }
    return k;
  };
  const conv_fusion bias_relu{.act = elementwise::relu, .bias = true};
  EXPECT_TRUE(dsl::validate(key(arch_id::host, pipeline::host_blocked, {.dynamic = true}), arch_id::host).ok());
  EXPECT_TRUE(dsl::validate(key(arch_id::host, pipeline::host_blocked, bias_relu), arch_id::host).ok());
  EXPECT_TRUE(dsl::validate(key(arch_id::sm_90, pipeline::tma_wgmma, bias_relu), arch_id::sm_90).ok());
  EXPECT_EQ(dsl::validate(key(arch_id::sm_90, pipeline::tma_wgmma, {.dynamic = true}), arch_id::sm_90).r,
            dsl::rule::conv_dynamic_fusion_not_offered_by_pipeline);
  auto one_element = key(arch_id::sm_90, pipeline::tma_wgmma, bias_relu);
  one_element.algo.vector_out = 1;
  EXPECT_EQ(dsl::validate(one_element, arch_id::sm_90).r, dsl::rule::conv_fusion_requires_output_vector);
  auto backward = key(arch_id::host, pipeline::host_blocked, bias_relu);
  backward.sig.dir = conv_direction::bwd_weight;
  const auto d = dsl::validate(backward, arch_id::host);
  EXPECT_EQ(d.r, dsl::rule::conv_fusion_requires_forward);
  EXPECT_NE(dsl::describe(d).view().find("is for conv fwd only, not bwd_weight"), std::string_view::npos)
      << dsl::describe(d).view();
}

}  // namespace
}  // namespace kdecl
