// Where the HIP convolution's implicit-GEMM operands live in the tensors: the gather sources its
// tile loaders read (kernels/gemm/hip/tile_loader.hpp load_gathered) and the row maps its
// epilogue writes through. Constexpr, so the same code runs on the device (clang makes constexpr
// functions host + device) and in the host tests, which build each direction's GEMM from these
// sources and compare it with the reference convolution (tests/unit/conv_hip_operands_test.cpp).
//
// A source answers, for a vector starting at (p, k) of its operand (p: the operand's row, M for
// A and N for B; k: the depth), its element offset from the group's tensor, or false where it
// reads zeros. A thread decodes its p once (line_of) and its k per tile (offset). Vectors never
// straddle a tap, a pixel or a tensor edge: the channel counts are multiples of them
// (conv_hip_rules.hpp conv_hip_problem_reason).
#pragma once

#include <cstdint>

#include "kdecl/kernels/conv/bwd_data_phase.hpp"
#include "kdecl/kernels/conv/im2col_index.hpp"

namespace kdecl::kernels::hip {

// fwd A (p = output pixel, k = (tap, c)) and bwd_data A (p = the phase's dX pixel, k = (phase tap,
// output channel)): the forward im2col gather of `geo` (im2col_index.hpp).
struct im2col_rows_source {
  const conv_gather_geometry* geo;
  struct line {
    im2col_row row;
    bool valid;
  };
  constexpr line line_of(int m) const { return {im2col_row_of(*geo, m < geo->m ? m : 0), m < geo->m}; }
  constexpr bool offset(const line& l, int kk, long long& at) const {
    std::int64_t o = 0;
    if (!l.valid || kk >= geo->k || !im2col_offset(*geo, l.row, kk, o)) return false;
    at = o;
    return true;
  }
};

// fwd B (p = output channel, k = (tap, c)): each output channel's filter, `depth` = taps x C/G
// contiguous elements, `ld` elements after the previous channel's.
struct filter_rows_source {
  int rows, depth;
  long long ld;
  struct line {
    long long start;
    bool valid;
  };
  constexpr line line_of(int n) const { return {static_cast<long long>(n) * ld, n < rows}; }
  constexpr bool offset(const line& l, int kk, long long& at) const {
    if (!l.valid || kk >= depth) return false;
    at = l.start + kk;
    return true;
  }
};

// bwd_data B (p = input channel c, contiguous; k = (phase tap, output channel)): the weights
// w[g, k, tap, c] of the taps that reach the phase.
struct phase_weights_source {
  const bwd_data_geometry* geo;
  const bwd_data_phase* ph;
  struct line {
    int c;
    bool valid;
  };
  constexpr line line_of(int c) const { return {c, c < geo->cg}; }
  constexpr bool offset(const line& l, int kk, long long& at) const {
    if (!l.valid || kk >= ph->gather.k) return false;
    at = phase_weight_offset(*geo, *ph, kk) + l.c;
    return true;
  }
};

// bwd_data C: row m of a phase is dX pixel phase_row_offset (the phase's pixels are not evenly
// strided); the epilogue's output_view calls it with the row and its leading dimension (unused).
struct phase_rows_map {
  const bwd_data_geometry* geo;
  const bwd_data_phase* ph;
  constexpr long long operator()(int m, int) const { return phase_row_offset(*geo, *ph, m); }
};

// The element offset of output pixel q (N x output pixels, W fastest) of a tensor with image
// stride `n_stride` and spatial strides `s` (D, H, W), `out` the output sizes.
constexpr long long output_pixel_offset(const int (&out)[3], long long n_stride, const long long (&s)[3], int q) {
  const int pixels = out[0] * out[1] * out[2];
  const int n = q / pixels, p = q % pixels;
  return n * n_stride + static_cast<long long>(p / (out[1] * out[2])) * s[0] +
         static_cast<long long>(p / out[2] % out[1]) * s[1] + static_cast<long long>(p % out[2]) * s[2];
}

// bwd_weight A (p = output channel k, contiguous; k = output pixel q): dY[q, g, k].
struct dy_pixels_source {
  int kg, pixels;  // K/G, and the depth N x output pixels
  int out[3];
  long long n_stride, s[3];
  struct line {
    int k;
    bool valid;
  };
  constexpr line line_of(int k) const { return {k, k < kg}; }
  constexpr bool offset(const line& l, int q, long long& at) const {
    if (!l.valid || q >= pixels) return false;
    at = output_pixel_offset(out, n_stride, s, q) + l.k;
    return true;
  }
};

// bwd_weight B (p = (tap, c), c contiguous; k = output pixel q): the input under tap (tap, c) of
// output pixel q, the forward im2col operand read transposed.
struct im2col_columns_source {
  const conv_gather_geometry* geo;
  struct line {
    int kk;
    bool valid;
  };
  constexpr line line_of(int kk) const { return {kk, kk < geo->k}; }
  constexpr bool offset(const line& l, int q, long long& at) const {
    std::int64_t o = 0;
    if (!l.valid || q >= geo->m || !im2col_offset(*geo, im2col_row_of(*geo, q), l.kk, o)) return false;
    at = o;
    return true;
  }
};

// bwd_weight's depth split: split s of `splits` covers k tiles [first, last) of `tiles`, whole
// tiles, never empty when splits <= tiles (the run plans it so).
struct depth_range {
  int first, last;
};
constexpr depth_range depth_range_of(int tiles, int splits, int s) {
  return {static_cast<int>(static_cast<long long>(tiles) * s / splits),
          static_cast<int>(static_cast<long long>(tiles) * (s + 1) / splits)};
}

}  // namespace kdecl::kernels::hip
