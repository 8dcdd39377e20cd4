#include <gtest/gtest.h>

#include <limits>
#include <vector>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/conv/grouped_conv_problem_hash.hpp"

namespace kdecl {
namespace {

std::string error_of(const grouped_conv_problem& p) { return p.validate().value_or(""); }

// ResNet-50's second 3x3 layer at batch 2.
grouped_conv_problem resnet_3x3() {
  return grouped_conv_problem{}.batch(2).channels(64, 64).input_size({56, 56}).filter_size({3, 3}).padding({1})
      .dtype(dtype::fp16);
}

TEST(GroupedConvProblem, DefaultsResolve) {
  auto p = resnet_3x3().normalized();
  EXPECT_FALSE(p.validate()) << *p.validate();
  EXPECT_EQ(p.ndim(), 2);
  EXPECT_EQ(p.lay, conv_layout::nhwgc);
  EXPECT_EQ(p.output_dims(), (std::array<std::int64_t, 3>{1, 56, 56}));
  EXPECT_EQ(p.stride_dims.v, (std::array<std::int64_t, 3>{1, 1, 1}));
  EXPECT_EQ(p.pad_left_dims.v, (std::array<std::int64_t, 3>{0, 1, 1}));  // the unused D slot is not padded
  // Packed channels-last strides: C, G, W, H, N.
  EXPECT_EQ(p.in_strides.c, 1);
  EXPECT_EQ(p.in_strides.g, 64);
  EXPECT_EQ(p.in_strides.spatial[2], 64);
  EXPECT_EQ(p.in_strides.spatial[1], 56 * 64);
  EXPECT_EQ(p.in_strides.n, 56 * 56 * 64);
  // Weights G K Y X C.
  EXPECT_EQ(p.wei_strides.spatial[2], 64);
  EXPECT_EQ(p.wei_strides.spatial[1], 3 * 64);
  EXPECT_EQ(p.wei_strides.n, 9 * 64);
  EXPECT_EQ(p.wei_strides.g, 64 * 9 * 64);
  EXPECT_EQ(p.span(conv_tensor::input), 2 * 56 * 56 * 64);
  EXPECT_EQ(p.span(conv_tensor::weight), 64 * 9 * 64);
  EXPECT_EQ(p.normalized(), p);  // idempotent
}

TEST(GroupedConvProblem, OneDAndThreeDAndGroupMajor) {
  auto p1 = grouped_conv_problem{}.batch(1).channels(4, 8).input_size({17}).filter_size({5}).stride({2})
                .dtype(dtype::fp32).normalized();
  ASSERT_FALSE(p1.validate()) << *p1.validate();
  EXPECT_EQ(p1.lay, conv_layout::nwgc);
  EXPECT_EQ(p1.output_dim(2), 7);
  EXPECT_EQ(p1.output_pixels(), 7);

  auto p3 = grouped_conv_problem{}.batch(1).channels(4, 8).input_size({5, 9, 9}).filter_size({3}).padding({1})
                .stride({1, 2, 2}).dtype(dtype::bf16).normalized();
  ASSERT_FALSE(p3.validate()) << *p3.validate();
  EXPECT_EQ(p3.lay, conv_layout::ndhwgc);
  EXPECT_EQ(p3.output_dims(), (std::array<std::int64_t, 3>{5, 5, 5}));
  EXPECT_EQ(p3.filter_taps(), 27);

  auto g = grouped_conv_problem{}.batch(3).channels(8, 8).groups(2).input_size({4, 5}).filter_size({1})
               .layout(conv_layout::gnhwc).dtype(dtype::fp16).normalized();
  ASSERT_FALSE(g.validate()) << *g.validate();
  EXPECT_EQ(g.in_strides.spatial[2], 4);          // C/G
  EXPECT_EQ(g.in_strides.n, 4 * 5 * 4);           // H W C/G
  EXPECT_EQ(g.in_strides.g, 3 * 4 * 5 * 4);       // N H W C/G
}

TEST(GroupedConvProblem, FlopsBytesAndShapes) {
  auto p = grouped_conv_problem{}.batch(32).channels(256, 256).groups(32).input_size({56, 56}).filter_size({3, 3})
               .padding({1}).dtype(dtype::bf16).normalized();
  EXPECT_DOUBLE_EQ(p.flops(), 2.0 * 32 * 256 * 8 * 56 * 56 * 9);
  EXPECT_DOUBLE_EQ(p.bytes(), 2.0 * (32.0 * 56 * 56 * 256 * 2 + 256 * 8 * 9));
  EXPECT_FALSE(p.is_depthwise());
  EXPECT_FALSE(p.is_pointwise());
  auto shape = p.implicit_gemm();
  EXPECT_EQ(shape.m, 32 * 56 * 56);
  EXPECT_EQ(shape.n, 8);
  EXPECT_EQ(shape.k, 8 * 9);
  p.dir = conv_direction::bwd_data;
  shape = p.implicit_gemm();
  EXPECT_EQ(shape.m, 32 * 56 * 56);
  EXPECT_EQ(shape.k, 8 * 9);
  p.dir = conv_direction::bwd_weight;
  shape = p.implicit_gemm();
  EXPECT_EQ(shape.m, 8);
  EXPECT_EQ(shape.n, 8 * 9);
  EXPECT_EQ(shape.k, 32 * 56 * 56);

  auto dw = grouped_conv_problem{}.batch(1).channels(32, 32).groups(32).input_size({7, 7}).filter_size({3})
                .padding({1}).dtype(dtype::fp16);
  EXPECT_TRUE(dw.normalized().is_depthwise());
  auto pw = grouped_conv_problem{}.batch(1).channels(32, 64).input_size({7, 7}).filter_size({1}).stride({2})
                .dtype(dtype::fp16).normalized();
  EXPECT_TRUE(pw.is_pointwise());
  EXPECT_EQ(pw.output_dims(), (std::array<std::int64_t, 3>{1, 4, 4}));
}

TEST(GroupedConvProblem, SizeAndGroupErrors) {
  auto base = resnet_3x3();
  EXPECT_EQ(error_of(grouped_conv_problem(base).batch(0)), "N = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).channels(-1, 64)), "C = -1 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).channels(64, 0)), "K = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).groups(0)), "G = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).channels(30, 64).groups(4)),
            "C = 30 is not divisible by G = 4: every group takes C/G input channels");
  EXPECT_EQ(error_of(grouped_conv_problem(base).channels(64, 30).groups(4)),
            "K = 30 is not divisible by G = 4: every group makes K/G output channels");
}

TEST(GroupedConvProblem, RankErrors) {
  auto base = resnet_3x3();
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({})),
            "input size is not set: input_size({W}), ({H, W}) or ({D, H, W})");
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({2, 3, 4, 5})),
            "input size has 4 values: convolutions have 1 to 3 spatial dimensions");
  EXPECT_EQ(error_of(grouped_conv_problem(base).filter_size({})),
            "filter size is not set: filter_size({X}), ({Y, X}) or ({Z, Y, X})");
  EXPECT_EQ(error_of(grouped_conv_problem(base).stride({1, 2, 2})),
            "stride has 3 values but the convolution is 2-D (the input size has 2): give one value per dimension, "
            "or one for all");
  EXPECT_EQ(error_of(grouped_conv_problem(base).filter_size({3, 3, 3})),
            "filter size has 3 values but the convolution is 2-D (the input size has 2): give one value per "
            "dimension, or one for all");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dilation({1, 1, 1})).substr(0, 26), "dilation has 3 values but ");
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({1, 1, 1}, {1})).substr(0, 30), "left padding has 3 values but ");
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({1}, {1, 1, 1})).substr(0, 31), "right padding has 3 values but ");
  EXPECT_EQ(error_of(grouped_conv_problem(base).layout(conv_layout::ndhwgc)),
            "layout ndhwgc is 3-D but the input size has 2 values");
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({9}).filter_size({3}).layout(conv_layout::gnhwc)),
            "layout gnhwc is 2-D but the input size has 1 value");
}

TEST(GroupedConvProblem, GeometryErrors) {
  auto base = resnet_3x3();
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({56, 0})), "input W = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).filter_size({0, 3})), "filter Y = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).stride({1, 0})), "stride of W = 0 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dilation({-1})), "dilation of H = -1 must be positive");
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({-1, 1}, {1})), "left padding of H = -1 must not be negative");
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({1}, {1, -2})), "right padding of W = -2 must not be negative");
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({3, 1}, {1})),
            "left padding of H = 3 is not smaller than the dilated filter extent 3 ((filter Y - 1) * dilation 1 + 1): "
            "an output would see only padding");
  // With dilation 2 the extent is 5, so padding 3 is fine.
  EXPECT_EQ(error_of(grouped_conv_problem(base).padding({3}).dilation({2})), "");
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({2, 56}).padding({0})),
            "output H = 0 must be at least 1: the padded input 2 + 0 + 0 = 2 is shorter than the dilated filter "
            "extent 3");
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_size({56, 3}).dilation({1, 2}).padding({0})),
            "output W = -1 must be at least 1: the padded input 3 + 0 + 0 = 3 is shorter than the dilated filter "
            "extent 5");
}

TEST(GroupedConvProblem, DtypeErrors) {
  auto base = resnet_3x3();
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::any, dtype::fp16, dtype::fp16)),
            "dtype of the input is not set");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::fp16, dtype::fp16, dtype::tf32)),
            "dtype of the output is tf32, a compute precision, not a storage dtype: store fp32");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::fp16, dtype::int4, dtype::fp16)),
            "dtype of the weight (int4) is a packed sub-byte type: convolution tensors need whole-byte elements");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::fp16, dtype::bf16, dtype::fp16)),
            "dtype of the input (fp16) and weight (bf16) differ; only fp8/bf8 may be mixed");
  EXPECT_EQ(error_of(grouped_conv_problem(base).accumulator(dtype::fp16)),
            "accumulator fp16 does not suit fp16 data (floating-point data accumulates in fp32, fp64 in fp64, int8 "
            "in int32)");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::fp8, dtype::bf8, dtype::fp16)), "");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtypes(dtype::fp16, dtype::fp16, dtype::fp32)), "");
}

// fp32 data may multiply in tf32; nothing else may multiply in anything but its own dtype.
TEST(GroupedConvProblem, ComputePrecision) {
  auto base = resnet_3x3();
  EXPECT_EQ(base.compute_type, base.in_type);
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtype(dtype::fp32).compute(dtype::tf32)), "");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtype(dtype::fp16).compute(dtype::tf32)),
            "compute tf32 does not suit fp16 data: a convolution multiplies in its input's dtype, or in tf32 for fp32 "
            "data");
  EXPECT_EQ(error_of(grouped_conv_problem(base).dtype(dtype::bf16).compute(dtype::fp16)),
            "compute fp16 does not suit bf16 data: a convolution multiplies in its input's dtype, or in tf32 for fp32 "
            "data");
  // dtype() after compute() resets the multiply to the data's dtype.
  EXPECT_EQ(grouped_conv_problem(base).compute(dtype::tf32).dtype(dtype::fp32).compute_type, dtype::fp32);
  const auto tf32 = grouped_conv_problem(base).dtype(dtype::fp32).compute(dtype::tf32);
  EXPECT_NE(tf32.describe().find("fp32 (multiplied in tf32)"), std::string::npos) << tf32.describe();
  EXPECT_NE(tf32, grouped_conv_problem(base).dtype(dtype::fp32));
}

TEST(GroupedConvProblem, StrideErrors) {
  auto base = resnet_3x3();
  conv_tensor_strides s;
  s.spatial[1] = -4;
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_strides(s)),
            "input stride of H = -4 must not be negative (0 means packed)");
  s = {};
  s.n = -1;
  EXPECT_EQ(error_of(grouped_conv_problem(base).weight_strides(s)),
            "weight stride of K = -1 must not be negative (0 means packed)");
  s = {};
  s.g = -1;
  EXPECT_EQ(error_of(grouped_conv_problem(base).output_strides(s)),
            "output stride of G = -1 must not be negative (0 means packed)");
  s = {};
  s.c = 2;
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_strides(s)),
            "input channel stride = 2 must be 1: channels are contiguous in every layout kdecl knows (channels-last)");
  s = {};
  s.spatial[1] = 100;  // rows of 56 pixels x 64 channels need 3584
  EXPECT_EQ(error_of(grouped_conv_problem(base).input_strides(s)),
            "input stride of H = 100 is smaller than the 3584 elements the dimensions inside it (W, G, C) span: "
            "elements would overlap");
  s = {};
  s.spatial[2] = 32;
  EXPECT_EQ(error_of(grouped_conv_problem(base).output_strides(s)),
            "output stride of W = 32 is smaller than the 64 elements the dimensions inside it (G, K) span: elements "
            "would overlap");
  s = {};
  s.n = 100;
  EXPECT_EQ(error_of(grouped_conv_problem(base).weight_strides(s)),
            "weight stride of K = 100 is smaller than the 576 elements the dimensions inside it (Y, X, C) span: "
            "elements would overlap");

  // Padded rows and images are fine, and packing is tight over what was given.
  s = {};
  s.spatial[1] = 60 * 64;
  auto p = grouped_conv_problem(base).input_strides(s).normalized();
  EXPECT_FALSE(p.validate()) << *p.validate();
  EXPECT_EQ(p.in_strides.n, 55 * 60 * 64 + 56 * 64);
  EXPECT_EQ(p.span(conv_tensor::input), 2 * p.in_strides.n);
}

TEST(GroupedConvProblem, ThirtyTwoBitOffsets) {
  auto small = resnet_3x3().normalized();
  EXPECT_FALSE(small.exceeds_32bit_offsets());
  auto big = grouped_conv_problem{}.batch(256).channels(256, 256).input_size({256, 256}).filter_size({3})
                 .padding({1}).dtype(dtype::bf16).normalized();
  ASSERT_FALSE(big.validate());
  EXPECT_EQ(big.exceeds_32bit_offsets().value_or(""),
            "the input spans 4294967296 elements: offsets overflow the kernel's 32-bit indexing");
}

TEST(GroupedConvProblem, Describe) {
  EXPECT_EQ(resnet_3x3().stride({2}).describe(),
            "fwd 2-D N=2 C=64 K=64 G=1 input 56x56 filter 3x3 stride 2x2 dilation 1x1 padding 1x1/1x1 "
            "(output 28x28) fp16 nhwgc");
}

// Found by fuzz_conv_fmha_problem: normalized(), output_dim() and validate()
// multiplied sizes near 2^63 before anything bounded them.
TEST(GroupedConvProblem, HugeSizesAreRefusedWithoutOverflow) {
  const std::int64_t huge = std::int64_t{1} << 62;
  EXPECT_EQ(error_of(resnet_3x3().input_size({huge, 8})), "input H = 4611686018427387904 exceeds 2^31 - 1");
  EXPECT_EQ(error_of(resnet_3x3().dilation({huge})), "dilation of H = 4611686018427387904 exceeds 2^31 - 1");
  EXPECT_EQ(error_of(resnet_3x3().batch(huge)), "N = 4611686018427387904 exceeds 2^31 - 1");
  // Every size within int32, the tensor beyond 2^63 - 1 elements.
  const std::int64_t big = (std::int64_t{1} << 31) - 1;
  EXPECT_EQ(error_of(grouped_conv_problem{}.batch(big).channels(big, big).input_size({big, big, big})
                         .filter_size({1}).dtype(dtype::fp16)),
            "the input spans more than 2^63 - 1 elements: beyond 64-bit offsets");
  // Strides that step past 2^63 - 1.
  conv_tensor_strides s;
  s.n = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(error_of(resnet_3x3().input_strides(s)), "the input spans more than 2^63 - 1 elements: beyond 64-bit offsets");
  // output_dim() of any int64 sizes gives a value, never an overflow.
  auto p = resnet_3x3().normalized();
  p.input_dims.v[2] = std::numeric_limits<std::int64_t>::max();
  p.pad_right_dims.v[2] = std::numeric_limits<std::int64_t>::max();
  EXPECT_EQ(p.output_dim(2), std::numeric_limits<std::int64_t>::max());  // clamped
}

// Strides that make elements overlap are refused, naming the dimensions inside the offending one.
TEST(GroupedConvProblem, OverlappingStridesAreRefusedNamingTheDimensionsInside) {
  conv_tensor_strides s;
  s.spatial[2] = 32;  // W steps 32 elements over 64 channels
  EXPECT_EQ(error_of(resnet_3x3().input_strides(s)),
            "input stride of W = 32 is smaller than the 64 elements the dimensions inside it (G, C) span: elements "
            "would overlap");
  conv_tensor_strides w;
  w.spatial[1] = 100;  // Y steps 100 elements over 3 X taps of 64 channels
  EXPECT_EQ(error_of(resnet_3x3().weight_strides(w)),
            "weight stride of Y = 100 is smaller than the 192 elements the dimensions inside it (X, C) span: elements "
            "would overlap");
}

// grouped_conv_problem_hash: equal problems hash alike; a change to any one field the
// comparison reads changes the hash (FNV over every word; checked on one field of each kind).
TEST(GroupedConvProblem, HashFollowsEveryComparedField) {
  const grouped_conv_problem_hash hash;
  const auto base = resnet_3x3().normalized();
  EXPECT_EQ(hash(base), hash(resnet_3x3().normalized()));
  std::vector<grouped_conv_problem> changed(8, base);
  changed[0].n += 1;
  changed[1].dir = conv_direction::bwd_data;
  changed[2].pad_right_dims.v[2] += 1;
  changed[3].out_strides.spatial[1] += 64;
  changed[4].wei_type = dtype::bf16;
  changed[5].fusion.bias = true;
  changed[6].lay = conv_layout::gnhwc;
  changed[7].stride_dims.v[1] = 2;
  for (const auto& p : changed) {
    EXPECT_NE(p, base);
    EXPECT_NE(hash(p), hash(base)) << p.describe();
  }
}

}  // namespace
}  // namespace kdecl
