// Backward-data of stride 1 is a forward convolution, so a forward kernel can run it:
//
//   dx[n, g, c, i] = sum_{k, f} dy[n, g, k, i + pad_left - f*dilation] * w[g, k, c, f]
//                  = sum_{k, f'} dy[n, g, k, i - pad' + f'*dilation] * w'[g, c, k, f']
//
// with f' = F - 1 - f (the filter flipped in every spatial dimension), w' the
// weights with input and output channels exchanged, and pad' = dilation*(F-1) - pad
// on each side (never negative: a valid problem's pads are smaller than its dilated
// filter). The forward problem reads dy as its input (K channels), w' as its
// weights (C output channels of K inputs each) and writes dx as its output.
//
// Used by the sm_90 backward-data kernel (cuda/sm90/conv_bwd_data_sm90.cuh), which
// copies w' into its workspace (cuda/flip_transpose_weights.cuh) and runs the
// sm_90 forward convolution; the host tests check the equivalence against the
// double reference (tests/unit/bwd_data_as_forward_test.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/conv/pixel_rows.hpp"

namespace kdecl::kernels {

// Why a normalized backward-data problem has no forward equivalent, or nothing.
inline std::optional<std::string> bwd_data_as_forward_reason(const grouped_conv_problem& p) {
  if (p.dir != conv_direction::bwd_data) return std::string("not a backward-data problem");
  for (int slot = 0; slot < 3; ++slot)
    if (p.stride_dims[slot] != 1)
      return "stride " + std::to_string(p.stride_dims[slot]) +
             " is not 1: only a stride-1 backward-data is one forward convolution (a strided one is one per "
             "stride phase: bwd_data_phases.hpp)";
  return std::nullopt;
}

// The forward problem of a normalized stride-1 backward-data problem: input = dy,
// weights = w' (packed, k contiguous), output = dx. Normalized.
inline grouped_conv_problem forward_equivalent_of_bwd_data(const grouped_conv_problem& p) {
  grouped_conv_problem f = p;
  f.dir = conv_direction::fwd;
  f.c = p.k;
  f.k = p.c;
  const auto dy = p.output_dims();
  for (int slot = 0; slot < 3; ++slot) {
    const auto s = std::size_t(slot);
    const std::int64_t reach = p.dilation_dims[slot] * (p.filter_dims[slot] - 1);
    f.input_dims.v[s] = dy[s];
    f.pad_left_dims.v[s] = reach - p.pad_left_dims[slot];
    f.pad_right_dims.v[s] = reach - p.pad_right_dims[slot];
  }
  f.in_type = p.out_type;
  f.out_type = p.in_type;
  f.in_strides = p.out_strides;
  f.out_strides = p.in_strides;
  f.wei_strides = {};  // packed by normalized()
  return f.normalized();
}

// A 1x1 backward-data without padding (stride 1) is a plain GEMM per group: dx = dy · W with
// M = N x pixels, N = C/G, K = K/G, W stored [K/G][C/G] (an rrr GEMM: no weight copy), provided
// dy's and dx's pixels are evenly strided (one leading dimension each). Empty when it is.
inline std::optional<std::string> bwd_data_as_gemm_reason(const grouped_conv_problem& p) {
  if (auto why = bwd_data_as_forward_reason(p)) return why;
  for (int slot = 0; slot < 3; ++slot)
    if (p.filter_dims[slot] != 1 || p.pad_left_dims[slot] != 0 || p.pad_right_dims[slot] != 0)
      return std::string("not a 1x1 filter without padding");
  for (conv_tensor t : {conv_tensor::input, conv_tensor::output})
    if (!pixels_evenly_strided(p, t)) return std::string("pixels not evenly strided");
  return std::nullopt;
}

// Where weight element (g, k, c, tap) of the backward problem is read, and where its
// flipped, transposed copy goes in the forward problem's weights (taps in Z, Y, X
// order with X fastest; flipping every dimension reverses the linear tap index).
// `filter` is the forward problem's filter: the whole filter of a stride-1 layer, or
// one stride phase's taps (bwd_data_phases.hpp), which sit at first + b*step of the
// backward filter. Element offsets; constexpr so that device code calls it too.
struct flipped_weights_map {
  std::int64_t src_g = 0, src_k = 0, src_s[3]{};  // the backward problem's weights (c contiguous)
  std::int64_t dst_g = 0, dst_c = 0, dst_s[3]{};  // the forward problem's weights (k contiguous)
  int filter[3]{1, 1, 1};
  int first[3]{0, 0, 0}, step[3]{1, 1, 1};        // backward tap of forward tap b: first + b*step (before the flip)
  int groups = 1, kg = 0, cg = 0, taps = 1;

  constexpr std::int64_t source(int g, int k, int c, int tap) const {
    const int fx = tap % filter[2], fy = tap / filter[2] % filter[1], fz = tap / (filter[2] * filter[1]);
    return g * src_g + k * src_k + (first[0] + fz * step[0]) * src_s[0] + (first[1] + fy * step[1]) * src_s[1] +
           (first[2] + fx * step[2]) * src_s[2] + c;
  }
  constexpr std::int64_t destination(int g, int k, int c, int tap) const {
    const int fx = tap % filter[2], fy = tap / filter[2] % filter[1], fz = tap / (filter[2] * filter[1]);
    return g * dst_g + c * dst_c + (filter[0] - 1 - fz) * dst_s[0] + (filter[1] - 1 - fy) * dst_s[1] +
           (filter[2] - 1 - fx) * dst_s[2] + k;
  }
  // Elements of the forward problem's packed weights.
  constexpr std::int64_t elements() const { return std::int64_t(groups) * kg * cg * taps; }
};

// Of a normalized backward problem `p` and its forward equivalent `f`.
inline flipped_weights_map flipped_weights_map_of(const grouped_conv_problem& p, const grouped_conv_problem& f) {
  flipped_weights_map m;
  m.src_g = p.wei_strides.g;
  m.src_k = p.wei_strides.n;
  m.dst_g = f.wei_strides.g;
  m.dst_c = f.wei_strides.n;
  for (int slot = 0; slot < 3; ++slot) {
    m.src_s[slot] = p.wei_strides.spatial[std::size_t(slot)];
    m.dst_s[slot] = f.wei_strides.spatial[std::size_t(slot)];
    m.filter[slot] = int(p.filter_dims[slot]);
  }
  m.groups = int(p.g);
  m.kg = int(p.k_per_group());
  m.cg = int(p.c_per_group());
  m.taps = int(p.filter_taps());
  return m;
}

// The copy on the host, element by element (`bytes` per element): what the CUDA kernel does.
inline void flip_transpose_weights_host(const flipped_weights_map& m, const void* w, void* wt, int bytes) {
  const auto* src = static_cast<const unsigned char*>(w);
  auto* dst = static_cast<unsigned char*>(wt);
  for (int g = 0; g < m.groups; ++g)
    for (int k = 0; k < m.kg; ++k)
      for (int c = 0; c < m.cg; ++c)
        for (int tap = 0; tap < m.taps; ++tap)
          std::memcpy(dst + m.destination(g, k, c, tap) * bytes, src + m.source(g, k, c, tap) * bytes,
                      std::size_t(bytes));
}

}  // namespace kdecl::kernels
