// Forward convolution as implicit GEMMs, one per group g:
//   A (M x K): rows = output pixels (n, od, oh, ow), depth = (tap, c):
//              in[n, o*stride - pad + tap*dilation, g, c], zero outside the input
//   B (K x N): wei[g, k, tap, c]
//   C (M x N): out[n, o, g, k]
// A fused epilogue (grouped_conv_key.hpp conv_fusion) is applied in fp32 as the tile is
// stored: act(acc + bias[g * K/G + k] + residual[n, o, g, k]), the GEMM host epilogue's math.
#pragma once

#include <vector>

#include "kdecl/kernels/conv/host/conv_geometry.hpp"
#include "kdecl/kernels/conv/host/implicit_gemm.hpp"
#include "kdecl/kernels/gemm/host/compute_types.hpp"
#include "kdecl/kernels/gemm/host/epilogue.hpp"

namespace kdecl::kernels::host::conv {

// Tf32: operands rounded to tf32 as they are packed (what a tensor core multiplies).
template <class TIn, class TWei, class TOut, class Compute, bool Tf32 = false>
class fwd_operands {
 public:
  // bias (K values) and residual (the output's shape and strides) are read only when `fuse` names them.
  fwd_operands(const conv_geometry& geo, const TIn* in, const TWei* wei, TOut* out, const conv_fusion& fuse = {},
               const TOut* bias = nullptr, const TOut* residual = nullptr)
      : geo_(geo), in_(in), wei_(wei), out_(out), fuse_(fuse), bias_(bias), residual_(residual) {}

  i64 batches() const { return geo_.g; }
  gemm_extent extent(i64) const { return {geo_.n * geo_.output_pixels(), geo_.kg, geo_.cg * geo_.taps}; }

  struct scratch {
    std::vector<i64> base;     // per row: the image and group offset in the input
    std::vector<i64x3> start;  // per row: o * stride - pad
    explicit scratch(blocking b) : base(std::size_t(b.mc)), start(std::size_t(b.mc)) {}
  };

  template <int W>
  void pack_a(scratch& s, i64 g, i64 i0, int mb, i64 k0, int kb, Compute* out) const {
    const i64 pixels = geo_.output_pixels();
    for (int r = 0; r < mb; ++r) {
      const i64 m = i0 + r, n = m / pixels;
      const i64x3 o = geo_.output_position(m % pixels);
      s.base[std::size_t(r)] = n * geo_.si.n + g * geo_.si.g;
      for (int d = 0; d < 3; ++d) s.start[std::size_t(r)][std::size_t(d)] = o[d] * geo_.stride[d] - geo_.pad[d];
    }
    zero_tail_lines<W>(out, mb, kb);
    for_each_run(k0, kb, geo_.cg, [&](i64 t, i64 c0, int p0, int len) {
      const i64x3 f = geo_.tap(t);
      for (int r = 0; r < mb; ++r) {
        Compute* dst = out + panel_index<W>(r, p0, kb);
        i64 at = s.base[std::size_t(r)] + c0;
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          const i64 i = s.start[std::size_t(r)][std::size_t(d)] + f[d] * geo_.dilation[d];
          inside = inside && i >= 0 && i < geo_.in[d];
          at += i * geo_.si.spatial[std::size_t(d)];
        }
        if (inside)
          for (int q = 0; q < len; ++q) dst[q * W] = to_compute<Compute, Tf32>(in_[at + q]);
        else
          for (int q = 0; q < len; ++q) dst[q * W] = Compute(0);
      }
    });
  }

  template <int W>
  void pack_b(scratch&, i64 g, i64 j0, int nb, i64 k0, int kb, Compute* out) const {
    zero_tail_lines<W>(out, nb, kb);
    for_each_run(k0, kb, geo_.cg, [&](i64 t, i64 c0, int p0, int len) {
      const i64 tap_at = g * geo_.sw.g + geo_.weight_tap_offset(geo_.tap(t)) + c0;
      for (int r = 0; r < nb; ++r) {
        Compute* dst = out + panel_index<W>(r, p0, kb);
        const TWei* src = wei_ + tap_at + (j0 + r) * geo_.sw.n;
        for (int q = 0; q < len; ++q) dst[q * W] = to_compute<Compute, Tf32>(src[q]);
      }
    });
  }

  void store(i64 g, i64 i0, i64 j0, int mb, int nb, const Compute* acc, i64 ld_acc) const {
    const i64 pixels = geo_.output_pixels();
    for (int r = 0; r < mb; ++r) {
      const i64 m = i0 + r, n = m / pixels;
      const i64x3 o = geo_.output_position(m % pixels);
      const i64 at = n * geo_.so.n + g * geo_.so.g + o[0] * geo_.so.spatial[0] + o[1] * geo_.so.spatial[1] +
                     o[2] * geo_.so.spatial[2] + j0;
      TOut* dst = out_ + at;
      if (!fuse_.fused()) {
        for (int j = 0; j < nb; ++j) dst[j] = store_as<TOut>(acc[r * ld_acc + j]);
        continue;
      }
      // Inputs read before the row is written: the residual may be the output itself.
      for (int j = 0; j < nb; ++j) {
        float v = float(acc[r * ld_acc + j]);
        if (fuse_.bias) v += load_real<float>(bias_[g * geo_.kg + j0 + j]);
        if (fuse_.residual) v += load_real<float>(residual_[at + j]);
        dst[j] = store_as<TOut>(apply_elementwise(fuse_.act, v));
      }
    }
  }

 private:
  const conv_geometry& geo_;
  const TIn* in_;
  const TWei* wei_;
  TOut* out_;
  conv_fusion fuse_;
  const TOut* bias_;
  const TOut* residual_;
};

}  // namespace kdecl::kernels::host::conv
