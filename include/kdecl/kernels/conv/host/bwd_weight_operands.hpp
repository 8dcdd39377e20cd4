// Backward-weight convolution as implicit GEMMs, one per group g:
//   A (M x K): rows = output channels k, depth = output pixels p = (n, od, oh, ow): out'[n, o, g, k]
//   B (K x N): columns = (tap, c): in[n, o*stride - pad + tap*dilation, g, c], zero outside the input
//   C (M x N): wei'[g, k, tap, c]
// The depth (N x output pixels) is long; the kernel splits it into fixed ranges
// when it has a workspace (implicit_gemm.hpp), deterministically.
#pragma once

#include <vector>

#include "kdecl/kernels/conv/host/conv_geometry.hpp"
#include "kdecl/kernels/conv/host/implicit_gemm.hpp"
#include "kdecl/kernels/gemm/host/compute_types.hpp"
#include "kdecl/kernels/gemm/host/epilogue.hpp"

namespace kdecl::kernels::host::conv {

// Tf32: operands rounded to tf32 as they are packed (what a tensor core multiplies).
template <class TIn, class TOutGrad, class TWeiGrad, class Compute, bool Tf32 = false>
class bwd_weight_operands {
 public:
  bwd_weight_operands(const conv_geometry& geo, const TIn* in, const TOutGrad* dy, TWeiGrad* dw)
      : geo_(geo), in_(in), dy_(dy), dw_(dw) {}

  i64 batches() const { return geo_.g; }
  gemm_extent extent(i64) const { return {geo_.kg, geo_.taps * geo_.cg, geo_.n * geo_.output_pixels()}; }

  struct scratch {
    std::vector<i64> dy_base, in_base;  // per depth p: offsets of (n, o) in out' and of n in the input
    std::vector<i64x3> start;           // per depth p: o * stride - pad
    explicit scratch(blocking b)
        : dy_base(std::size_t(b.kc)), in_base(std::size_t(b.kc)), start(std::size_t(b.kc)) {}
  };

  template <int W>
  void pack_a(scratch& s, i64 g, i64 i0, int mb, i64 k0, int kb, Compute* out) const {
    locate_depth(s, g, k0, kb);
    zero_tail_lines<W>(out, mb, kb);
    for (int p = 0; p < kb; ++p) {
      const TOutGrad* src = dy_ + s.dy_base[std::size_t(p)] + i0;
      for (int r = 0; r < mb; ++r) out[panel_index<W>(r, p, kb)] = to_compute<Compute, Tf32>(src[r]);
    }
  }

  template <int W>
  void pack_b(scratch& s, i64 g, i64 j0, int nb, i64 k0, int kb, Compute* out) const {
    locate_depth(s, g, k0, kb);
    zero_tail_lines<W>(out, nb, kb);
    // Lines j = (tap, c) in runs of one tap: one bounds check per (run, depth).
    for_each_run(j0, nb, geo_.cg, [&](i64 t, i64 c0, int line0, int len) {
      const i64x3 f = geo_.tap(t);
      for (int p = 0; p < kb; ++p) {
        i64 at = s.in_base[std::size_t(p)] + c0;
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          const i64 i = s.start[std::size_t(p)][std::size_t(d)] + f[d] * geo_.dilation[d];
          inside = inside && i >= 0 && i < geo_.in[d];
          at += i * geo_.si.spatial[std::size_t(d)];
        }
        for (int q = 0; q < len; ++q)
          out[panel_index<W>(line0 + q, p, kb)] = inside ? to_compute<Compute, Tf32>(in_[at + q]) : Compute(0);
      }
    });
  }

  void store(i64 g, i64 i0, i64 j0, int mb, int nb, const Compute* acc, i64 ld_acc) const {
    for (int r = 0; r < mb; ++r) {
      TWeiGrad* row = dw_ + g * geo_.sw.g + (i0 + r) * geo_.sw.n;
      for_each_run(j0, nb, geo_.cg, [&](i64 t, i64 c0, int line0, int len) {
        TWeiGrad* dst = row + geo_.weight_tap_offset(geo_.tap(t)) + c0;
        for (int q = 0; q < len; ++q) dst[q] = store_as<TWeiGrad>(acc[r * ld_acc + line0 + q]);
      });
    }
  }

 private:
  // Offsets of the depth slice's pixels (shared by pack_a and pack_b of one slice).
  void locate_depth(scratch& s, i64 g, i64 k0, int kb) const {
    const i64 pixels = geo_.output_pixels();
    for (int p = 0; p < kb; ++p) {
      const i64 n = (k0 + p) / pixels;
      const i64x3 o = geo_.output_position((k0 + p) % pixels);
      s.dy_base[std::size_t(p)] = n * geo_.so.n + g * geo_.so.g + o[0] * geo_.so.spatial[0] +
                                  o[1] * geo_.so.spatial[1] + o[2] * geo_.so.spatial[2];
      s.in_base[std::size_t(p)] = n * geo_.si.n + g * geo_.si.g;
      for (int d = 0; d < 3; ++d) s.start[std::size_t(p)][std::size_t(d)] = o[d] * geo_.stride[d] - geo_.pad[d];
    }
  }

  const conv_geometry& geo_;
  const TIn* in_;
  const TOutGrad* dy_;
  TWeiGrad* dw_;
};

}  // namespace kdecl::kernels::host::conv
