// Backward-data convolution as implicit GEMMs without wasted zero work.
//
// Input position i receives out'[o] through tap f when o*stride - pad + f*dilation = i,
// so only taps with f*dilation = (i + pad) (mod stride) contribute. Input
// positions are therefore split into stride phases r = (i + pad) mod stride
// (per spatial dimension); within a phase every position has the same taps.
// One GEMM per (group g, phase):
//   A (M x K): rows = the phase's input pixels (n, id, ih, iw), depth = (phase tap, k):
//              out'[n, (i + pad - f*dilation) / stride, g, k], zero outside the output
//   B (K x N): wei[g, k, f, c]
//   C (M x N): in'[n, i, g, c]
// A phase without taps is a GEMM of depth 0: its input gradient is written as zeros.
#pragma once

#include <array>
#include <vector>

#include "kdecl/kernels/conv/host/conv_geometry.hpp"
#include "kdecl/kernels/conv/host/implicit_gemm.hpp"
#include "kdecl/kernels/gemm/host/compute_types.hpp"
#include "kdecl/kernels/gemm/host/epilogue.hpp"

namespace kdecl::kernels::host::conv {

// Tf32: operands rounded to tf32 as they are packed (what a tensor core multiplies).
template <class TOutGrad, class TWei, class TInGrad, class Compute, bool Tf32 = false>
class bwd_data_operands {
 public:
  bwd_data_operands(const conv_geometry& geo, const TOutGrad* dy, const TWei* wei, TInGrad* dx)
      : geo_(geo), dy_(dy), wei_(wei), dx_(dx) {
    for (std::size_t d = 0; d < 3; ++d) {
      const i64 s = geo.stride[d];
      rows_[d].resize(std::size_t(s));
      taps_[d].resize(std::size_t(s));
      for (i64 i = 0; i < geo.in[d]; ++i) rows_[d][std::size_t((i + geo.pad[d]) % s)].push_back(i);
      for (i64 f = 0; f < geo.filter[d]; ++f) taps_[d][std::size_t(f * geo.dilation[d] % s)].push_back(f);
    }
    phases_ = geo.stride[0] * geo.stride[1] * geo.stride[2];
  }

  i64 batches() const { return geo_.g * phases_; }
  gemm_extent extent(i64 b) const {
    const phase ph = phase_of(b);
    return {geo_.n * i64(ph.rows[0]->size() * ph.rows[1]->size() * ph.rows[2]->size()), geo_.cg,
            geo_.kg * i64(ph.taps[0]->size() * ph.taps[1]->size() * ph.taps[2]->size())};
  }

  struct scratch {
    std::vector<i64> base;  // per row: offset of (n, g) in out'
    std::vector<i64x3> pos; // per row: the input position i + pad
    explicit scratch(blocking b) : base(std::size_t(b.mc)), pos(std::size_t(b.mc)) {}
  };

  template <int W>
  void pack_a(scratch& s, i64 b, i64 i0, int mb, i64 k0, int kb, Compute* out) const {
    const phase ph = phase_of(b);
    for (int r = 0; r < mb; ++r) {
      const row_pos rp = row_of(ph, i0 + r);
      s.base[std::size_t(r)] = rp.n * geo_.so.n + ph.g * geo_.so.g;
      for (int d = 0; d < 3; ++d) s.pos[std::size_t(r)][std::size_t(d)] = rp.i[d] + geo_.pad[d];
    }
    zero_tail_lines<W>(out, mb, kb);
    for_each_run(k0, kb, geo_.kg, [&](i64 t, i64 k_first, int p0, int len) {
      const i64x3 f = tap_of(ph, t);
      for (int r = 0; r < mb; ++r) {
        Compute* dst = out + panel_index<W>(r, p0, kb);
        i64 at = s.base[std::size_t(r)] + k_first;
        bool inside = true;
        for (int d = 0; d < 3; ++d) {
          const i64 o = (s.pos[std::size_t(r)][std::size_t(d)] - f[d] * geo_.dilation[d]) / geo_.stride[d];  // exact
          inside = inside && s.pos[std::size_t(r)][std::size_t(d)] >= f[d] * geo_.dilation[d] && o < geo_.out[d];
          at += o * geo_.so.spatial[std::size_t(d)];
        }
        if (inside)
          for (int q = 0; q < len; ++q) dst[q * W] = to_compute<Compute, Tf32>(dy_[at + q]);
        else
          for (int q = 0; q < len; ++q) dst[q * W] = Compute(0);
      }
    });
  }

  template <int W>
  void pack_b(scratch&, i64 b, i64 j0, int nb, i64 k0, int kb, Compute* out) const {
    const phase ph = phase_of(b);
    zero_tail_lines<W>(out, nb, kb);
    for_each_run(k0, kb, geo_.kg, [&](i64 t, i64 k_first, int p0, int len) {
      const i64 tap_at = ph.g * geo_.sw.g + geo_.weight_tap_offset(tap_of(ph, t)) + k_first * geo_.sw.n + j0;
      for (int q = 0; q < len; ++q) {
        const TWei* src = wei_ + tap_at + q * geo_.sw.n;
        for (int r = 0; r < nb; ++r) out[panel_index<W>(r, p0 + q, kb)] = to_compute<Compute, Tf32>(src[r]);
      }
    });
  }

  void store(i64 b, i64 i0, i64 j0, int mb, int nb, const Compute* acc, i64 ld_acc) const {
    const phase ph = phase_of(b);
    for (int r = 0; r < mb; ++r) {
      const row_pos rp = row_of(ph, i0 + r);
      TInGrad* dst = dx_ + rp.n * geo_.si.n + ph.g * geo_.si.g + rp.i[0] * geo_.si.spatial[0] +
                     rp.i[1] * geo_.si.spatial[1] + rp.i[2] * geo_.si.spatial[2] + j0;
      for (int j = 0; j < nb; ++j) dst[j] = store_as<TInGrad>(acc[r * ld_acc + j]);
    }
  }

 private:
  struct phase {
    i64 g;
    std::array<const std::vector<i64>*, 3> rows, taps;  // this phase's input positions and filter taps
  };
  struct row_pos {
    i64 n;
    i64x3 i;
  };

  phase phase_of(i64 b) const {
    const i64 g = b / phases_, r = b % phases_;
    const i64 r2 = r % geo_.stride[2], r1 = r / geo_.stride[2] % geo_.stride[1], r0 = r / (geo_.stride[2] * geo_.stride[1]);
    return {g,
            {&rows_[0][std::size_t(r0)], &rows_[1][std::size_t(r1)], &rows_[2][std::size_t(r2)]},
            {&taps_[0][std::size_t(r0)], &taps_[1][std::size_t(r1)], &taps_[2][std::size_t(r2)]}};
  }
  static row_pos row_of(const phase& ph, i64 m) {
    const i64 e2 = i64(ph.rows[2]->size()), e1 = i64(ph.rows[1]->size()), e0 = i64(ph.rows[0]->size());
    return {m / (e2 * e1 * e0), {(*ph.rows[0])[std::size_t(m / (e2 * e1) % e0)],
                                 (*ph.rows[1])[std::size_t(m / e2 % e1)], (*ph.rows[2])[std::size_t(m % e2)]}};
  }
  static i64x3 tap_of(const phase& ph, i64 t) {
    const i64 e2 = i64(ph.taps[2]->size()), e1 = i64(ph.taps[1]->size());
    return {(*ph.taps[0])[std::size_t(t / (e2 * e1))], (*ph.taps[1])[std::size_t(t / e2 % e1)],
            (*ph.taps[2])[std::size_t(t % e2)]};
  }

  const conv_geometry& geo_;
  const TOutGrad* dy_;
  const TWei* wei_;
  TInGrad* dx_;
  std::array<std::vector<std::vector<i64>>, 3> rows_, taps_;  // per dimension and residue
  i64 phases_ = 1;
};

}  // namespace kdecl::kernels::host::conv
