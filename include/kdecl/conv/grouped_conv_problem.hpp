// A grouped-convolution problem: one of the three directions of a 1-D, 2-D or
// 3-D convolution with G groups.
//
//   fwd:        out[n, g, k, o]  = sum_{c, f} in[n, g, c, o*stride - pad_left + f*dilation] * wei[g, k, c, f]
//   bwd_data:   in'[n, g, c, i]  = sum over the (k, o, f) with o*stride - pad_left + f*dilation = i of out'[n, g, k, o] * wei[g, k, c, f]
//   bwd_weight: wei'[g, k, c, f] = sum_{n, o} out'[n, g, k, o] * in[n, g, c, o*stride - pad_left + f*dilation]
//
// with c < C/G, k < K/G, o an output position, f a filter tap, and input
// positions outside [0, size) reading zero. The problem describes the geometry
// the same way in every direction (input size, filter; the output size
// follows); the direction says which tensor is computed. Pointers travel
// separately in grouped_conv_args.
//
// Spatial values are given in D, H, W order (Z, Y, X for the filter) with one
// value per spatial dimension, or one value for all of them:
//
//   auto p = grouped_conv_problem{}.batch(32).channels(256, 256).groups(32)
//                .input_size({56, 56}).filter_size({3, 3}).stride({1}).padding({1})
//                .dtype(dtype::bf16);  // layout: channels-last (nhwgc) unless set
//
// normalized() resolves what was left to defaults (packed strides, the
// channels-last layout of the problem's rank, broadcast values); validate()
// names the offending value and the rule it broke.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_key.hpp"

namespace kdecl {

// Up to three spatial values as given, right-aligned in D, H, W order: a 2-D
// value {h, w} sits in v[1], v[2]. count is how many were given: 0 (default),
// 1 (the same for every dimension) or one per dimension. After normalization
// count equals the problem's rank and the unused leading slots hold the
// neutral value (size 1, stride 1, dilation 1, padding 0).
struct conv_dims {
  std::array<std::int64_t, 3> v{};
  int count = 0;

  conv_dims() = default;
  conv_dims(std::initializer_list<std::int64_t> values);
  // Slot 0 = D, 1 = H, 2 = W.
  std::int64_t operator[](int slot) const { return v[std::size_t(slot)]; }
  bool operator==(const conv_dims&) const = default;
};

// Element strides of one tensor; 0 means packed (tight over the strides inside it).
//   activations (input and output): n = image, g = group, c = channel within the group, spatial = D, H, W;
//   weights: n = output channel within the group (k), g = group, c = input channel within the group,
//            spatial = Z, Y, X.
// Channels are always contiguous (c = 1): every layout kdecl knows is channels-last.
struct conv_tensor_strides {
  std::int64_t n = 0, g = 0, c = 0;
  std::array<std::int64_t, 3> spatial{};
  bool operator==(const conv_tensor_strides&) const = default;
};

enum class conv_tensor : std::uint8_t { input, weight, output };

// "bias + residual, then relu", "bias", "none", "any, read at run time": a fused epilogue in
// words (messages, tables).
std::string describe(const conv_fusion& f);

struct grouped_conv_problem {
  conv_direction dir = conv_direction::fwd;
  std::int64_t n = 0, c = 0, k = 0, g = 1;  // batch, input channels, output channels, groups
  conv_dims input_dims, filter_dims, stride_dims, dilation_dims, pad_left_dims, pad_right_dims;
  std::optional<conv_layout> lay;  // unset: channels-last of the problem's rank (nwgc, nhwgc, ndhwgc)
  kdecl::dtype in_type = kdecl::dtype::fp16, wei_type = kdecl::dtype::fp16, out_type = kdecl::dtype::fp16;
  kdecl::dtype acc_type = kdecl::dtype::fp32;
  // The multiply's precision: the input's dtype, or tf32 for fp32 data (tensor cores).
  kdecl::dtype compute_type = kdecl::dtype::fp16;
  conv_tensor_strides in_strides{}, wei_strides{}, out_strides{};
  // Forward only: the epilogue fused into the store (grouped_conv_key.hpp conv_fusion); the
  // bias and residual pointers travel in grouped_conv_args.
  conv_fusion fusion{};

  // ---- setters (chainable)
  grouped_conv_problem& direction(conv_direction d) { dir = d; return *this; }
  grouped_conv_problem& batch(std::int64_t n_) { n = n_; return *this; }
  grouped_conv_problem& channels(std::int64_t c_, std::int64_t k_) { c = c_; k = k_; return *this; }
  grouped_conv_problem& groups(std::int64_t g_) { g = g_; return *this; }
  // The input's spatial size; its number of values is the problem's rank (1, 2 or 3).
  grouped_conv_problem& input_size(conv_dims d) { input_dims = d; return *this; }
  grouped_conv_problem& filter_size(conv_dims d) { filter_dims = d; return *this; }
  grouped_conv_problem& stride(conv_dims d) { stride_dims = d; return *this; }
  grouped_conv_problem& dilation(conv_dims d) { dilation_dims = d; return *this; }
  grouped_conv_problem& padding(conv_dims both) { pad_left_dims = pad_right_dims = both; return *this; }
  grouped_conv_problem& padding(conv_dims left, conv_dims right) {
    pad_left_dims = left; pad_right_dims = right; return *this;
  }
  grouped_conv_problem& layout(conv_layout l) { lay = l; return *this; }
  // in = wei = out = `all`; the accumulator follows default_accumulator, the multiply is in `in`.
  grouped_conv_problem& dtype(kdecl::dtype all) { return dtypes(all, all, all); }
  grouped_conv_problem& dtypes(kdecl::dtype in, kdecl::dtype wei, kdecl::dtype out) {
    in_type = in; wei_type = wei; out_type = out; acc_type = default_accumulator(in); compute_type = in;
    return *this;
  }
  // fp32 data may multiply in tf32 (tensor cores; 10-bit mantissas) only when the caller says so.
  // Set after dtype().
  grouped_conv_problem& compute(kdecl::dtype c) { compute_type = c; return *this; }
  grouped_conv_problem& accumulator(kdecl::dtype acc) { acc_type = acc; return *this; }
  grouped_conv_problem& input_strides(const conv_tensor_strides& s) { in_strides = s; return *this; }
  grouped_conv_problem& weight_strides(const conv_tensor_strides& s) { wei_strides = s; return *this; }
  grouped_conv_problem& output_strides(const conv_tensor_strides& s) { out_strides = s; return *this; }
  // The fused epilogue: out = act(conv + bias + residual), each part optional (forward only).
  grouped_conv_problem& fuse(const conv_fusion& f) { fusion = f; return *this; }
  grouped_conv_problem& bias(bool on = true) { fusion.bias = on; return *this; }
  grouped_conv_problem& residual(bool on = true) { fusion.residual = on; return *this; }
  grouped_conv_problem& activation(elementwise act) { fusion.act = act; return *this; }

  // True when a kernel of signature `s` computes this problem's kind of convolution:
  // direction, rank, layout, dtypes, compute precision and fused epilogue equal (or the kernel reads the
  // fusion at run time), the specialization aside.
  bool has_signature(const grouped_conv_signature& s) const {
    return dir == s.dir && ndim() == s.ndim && layout_or_default() == s.lay && in_type == s.in && wei_type == s.wei &&
           out_type == s.out && acc_type == s.acc && compute_type == s.compute && s.fuse.serves(fusion);
  }

  // ---- derived values (meaningful on a normalized, valid problem)
  int ndim() const { return input_dims.count; }
  conv_layout layout_or_default() const;
  std::int64_t c_per_group() const { return g > 0 ? c / g : 0; }
  std::int64_t k_per_group() const { return g > 0 ? k / g : 0; }
  // (size + pad_left + pad_right - ((filter - 1) * dilation + 1)) / stride + 1, per slot.
  std::int64_t output_dim(int slot) const;
  std::array<std::int64_t, 3> output_dims() const { return {output_dim(0), output_dim(1), output_dim(2)}; }
  std::int64_t input_pixels() const { return input_dims[0] * input_dims[1] * input_dims[2]; }
  std::int64_t output_pixels() const { return output_dim(0) * output_dim(1) * output_dim(2); }
  std::int64_t filter_taps() const { return filter_dims[0] * filter_dims[1] * filter_dims[2]; }
  // Logical elements of a tensor (what a packed copy holds).
  std::int64_t elements(conv_tensor t) const;
  // Elements a tensor spans in memory with its strides: largest offset + 1.
  std::int64_t span(conv_tensor t) const;
  kdecl::dtype dtype_of(conv_tensor t) const;
  const conv_tensor_strides& strides_of(conv_tensor t) const;
  // The tensor the direction computes (output for fwd, input for bwd_data, weight for bwd_weight).
  conv_tensor result() const;

  // The implicit GEMM every direction is (grouped_conv_key.hpp), per group.
  struct gemm_shape {
    std::int64_t m, n, k;
  };
  gemm_shape implicit_gemm() const;

  // Copy with defaults resolved (layout, broadcast spatial values, packed strides).
  grouped_conv_problem normalized() const;

  // Empty when valid, otherwise one sentence naming the value and the rule it broke.
  std::optional<std::string> validate() const;

  // For kernels that index within a tensor with 32-bit offsets: the tensor
  // whose span exceeds 2^31 - 1 elements, or empty. Expects a normalized problem.
  std::optional<std::string> exceeds_32bit_offsets() const;

  // Multiply-adds times two: 2 N K (C/G) * output pixels * filter taps (every direction).
  // flops(), bytes() and is_pointwise() resolve defaults themselves (any problem).
  double flops() const;
  // The least memory traffic: input, weight and output once each, in their dtypes (and a
  // fused epilogue's bias and residual).
  double bytes() const;
  // G = C = K: one input and one output channel per group.
  bool is_depthwise() const { return g > 1 && g == c && g == k; }
  // A 1x1(x1) filter without padding: a (strided) GEMM.
  bool is_pointwise() const;

  // One line: direction, rank, sizes, geometry, dtypes and layout (for messages and tables).
  std::string describe() const;

  bool operator==(const grouped_conv_problem&) const = default;
};

// Pointers of one call. The direction decides which tensor is written: fwd
// writes `out`, bwd_data writes `in` (the input gradient), bwd_weight writes
// `wei` (the weight gradient); the other two are read. A fused forward epilogue
// (problem.fusion) also reads `bias` (K values, the output's dtype) and `residual`
// (the output's shape, dtype and strides; it may be `out` itself).
struct grouped_conv_args {
  void* in = nullptr;
  void* wei = nullptr;
  void* out = nullptr;
  void* workspace = nullptr;  // for kernels that report workspace_bytes() > 0
  std::size_t workspace_bytes = 0;
  const void* bias = nullptr;
  const void* residual = nullptr;

  void* tensor(conv_tensor t) const { return t == conv_tensor::input ? in : t == conv_tensor::weight ? wei : out; }
};

}  // namespace kdecl
