// The host GEMM driver: cache blocking, packing, threading and the epilogue.
//
// C is cut into mc x nc tiles (one work item per tile and batch entry, handed
// out to the thread pool through an atomic counter, so threads never share an
// output element). For each kc-deep slice of k a worker packs its A block
// (mc x kc, stays in L2) and B block (kc x nc) into compute-type panels, then
// sweeps MR x NR micro-tiles over them into a per-tile accumulator. The
// epilogue runs once per tile after the last slice. Repacking B per tile costs
// 1/mc of the multiply work, a fair price for threads that never synchronise.
// The block_scaled variant takes kc = 128, one scale block: each slice's product
// goes into a second accumulator and is added to the tile's times its row's A
// scale and its column block's B scale.
//
// Only the element types and the micro-tile are template parameters; layouts,
// block sizes, the elementwise op and the number of D tensors are run-time
// values, which keeps the number of instantiations (and compile time) small.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>

#include "kdecl/core/enums.hpp"
#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/host/compute_types.hpp"
#include "kdecl/kernels/gemm/host/epilogue.hpp"
#include "kdecl/kernels/gemm/host/micro_kernel.hpp"
#include "kdecl/kernels/gemm/host/pack.hpp"
#include "kdecl/kernels/host/thread_pool.hpp"
#include "kdecl/kernels/gemm/preshuffle.hpp"

namespace kdecl::kernels::host {

struct blocking {
  int mc, nc, kc;  // cache tile; mc % MR == 0 and nc % NR == 0
};

// Element strides of a matrix view: (row, col) sits at row*row + col*col.
struct matrix_strides {
  std::int64_t row, col;
  static matrix_strides of(layout l, std::int64_t ld) {
    return l == layout::row ? matrix_strides{ld, 1} : matrix_strides{1, ld};
  }
};

template <class TA, class TB, class TC, class Compute, int MR, int NR, bool RoundToTf32>
class blocked_gemm {
 public:
  using real = epilogue_math_t<Compute>;

  blocked_gemm(const gemm_problem& p, const gemm_args& args, blocking blk)
      : p_(p), args_(args), blk_(blk),
        a_(matrix_strides::of(p.sig.lay.a, p.lda)),
        b_(matrix_strides::of(p.sig.lay.b, p.ldb)),
        c_(matrix_strides::of(p.sig.lay.c, p.ldc)),
        d_(matrix_strides::of(p.sig.lay.c, p.ldd)),
        preshuffled_(p.sig.variant == gemm_variant::preshuffle),
        block_scaled_(p.sig.variant == gemm_variant::block_scaled),
        num_d_(p.sig.variant == gemm_variant::multi_d ? p.sig.num_d : 0),
        ew_(p.sig.variant == gemm_variant::multi_d ? p.sig.ew : elementwise::pass_through) {}

  void run() {
    const std::int64_t tiles_m = (p_.m + blk_.mc - 1) / blk_.mc;
    const std::int64_t tiles_n = (p_.n + blk_.nc - 1) / blk_.nc;
    const std::int64_t items = p_.batch * tiles_m * tiles_n;
    if (items == 0) return;
    std::atomic<std::int64_t> next{0};
    auto& pool = thread_pool::instance();
    const int workers = int(std::min<std::int64_t>(items, pool.size()));
    pool.run(workers, [&](int) {
      scratch s(blk_);
      for (std::int64_t item; (item = next.fetch_add(1)) < items;) {
        const std::int64_t batch = item / (tiles_m * tiles_n);
        const std::int64_t rest = item % (tiles_m * tiles_n);
        compute_tile(s, batch, (rest / tiles_n) * blk_.mc, (rest % tiles_n) * blk_.nc);
      }
    });
  }

 private:
  struct scratch {
    std::vector<Compute> a_pack, b_pack, acc, slice;  // slice: one scale block's product (block_scaled)
    explicit scratch(blocking b)
        : a_pack(std::size_t(b.mc) * b.kc), b_pack(std::size_t(b.nc) * b.kc),
          acc(std::size_t(b.mc) * b.nc) {}
  };

  void compute_tile(scratch& s, std::int64_t batch, std::int64_t i0, std::int64_t j0) const {
    const int mb = int(std::min<std::int64_t>(blk_.mc, p_.m - i0));
    const int nb = int(std::min<std::int64_t>(blk_.nc, p_.n - j0));
    const std::int64_t ld_acc = (nb + NR - 1) / NR * NR;
    const auto* a = static_cast<const TA*>(args_.a) + batch * p_.stride_a;
    const auto* b = static_cast<const TB*>(args_.b) + batch * p_.stride_b;

    if (p_.k == 0 || block_scaled_) std::fill(s.acc.begin(), s.acc.end(), Compute(0));
    if (block_scaled_) s.slice.resize(s.acc.size());
    Compute* product = block_scaled_ ? s.slice.data() : s.acc.data();
    for (std::int64_t k0 = 0; k0 < p_.k; k0 += blk_.kc) {
      const int kb = int(std::min<std::int64_t>(blk_.kc, p_.k - k0));
      // A block: lines are rows i, depth is k.
      pack_panels<MR, RoundToTf32>(a + i0 * a_.row + k0 * a_.col, strided_offset{a_.row, a_.col},
                                   mb, kb, s.a_pack.data());
      // B block: lines are columns j, depth is k.
      if (preshuffled_) {
        const int bits = bits_of(p_.sig.b);
        auto offset = [&](int line, int depth) {
          return std::int64_t(preshuffled_offset(k0 + depth, j0 + line, p_.k, p_.n, bits));
        };
        pack_panels<NR, RoundToTf32>(b, offset, nb, kb, s.b_pack.data());
      } else {
        pack_panels<NR, RoundToTf32>(b + j0 * b_.col + k0 * b_.row, strided_offset{b_.col, b_.row},
                                     nb, kb, s.b_pack.data());
      }
      for (int jr = 0; jr < nb; jr += NR)
        for (int ir = 0; ir < mb; ir += MR)
          micro_kernel<Compute, MR, NR>(kb, s.a_pack.data() + std::int64_t(ir) * kb,
                                        s.b_pack.data() + std::int64_t(jr) * kb,
                                        product + ir * ld_acc + jr, ld_acc, k0 > 0 && !block_scaled_);
      if (block_scaled_) add_scaled_slice(s, ld_acc, batch, i0, j0, mb, nb, k0 / scale_block_k);
    }
    epilogue(s.acc.data(), ld_acc, batch, i0, j0, mb, nb);
  }

  // acc += slice * sa(i, kb) * sb(j / 128, kb) over the tile (the block_scaled variant, kc = 128).
  void add_scaled_slice(scratch& s, std::int64_t ld_acc, std::int64_t batch, std::int64_t i0, std::int64_t j0,
                        int mb, int nb, std::int64_t kb) const {
    const block_scale_layout& l = p_.scales;
    const float* sa = args_.scale_a + batch * l.stride_a + kb * l.ld_a + i0;
    const float* sb = args_.scale_b + batch * l.stride_b + kb;
    for (int i = 0; i < mb; ++i)
      for (int j = 0; j < nb; ++j)
        s.acc[std::size_t(i * ld_acc + j)] +=
            s.slice[std::size_t(i * ld_acc + j)] * (sa[i] * sb[((j0 + j) / scale_block_n) * l.ld_b]);
  }

  void epilogue(const Compute* acc, std::int64_t ld_acc, std::int64_t batch, std::int64_t i0,
                std::int64_t j0, int mb, int nb) const {
    auto* c = static_cast<TC*>(args_.c) + batch * p_.stride_c + i0 * c_.row + j0 * c_.col;
    const TC* d[max_d_tensors] = {};
    for (int t = 0; t < num_d_; ++t)
      d[t] = static_cast<const TC*>(args_.d[t]) + batch * p_.stride_d + i0 * d_.row + j0 * d_.col;
    const real alpha = real(args_.alpha), beta = real(args_.beta);

    auto one = [&](int i, int j) {
      real x = alpha * real(acc[i * ld_acc + j]);
      const std::int64_t at = i * c_.row + j * c_.col;
      if (beta != real(0)) x += beta * load_real<real>(c[at]);  // beta == 0: C is never read
      for (int t = 0; t < num_d_; ++t) x += load_real<real>(d[t][i * d_.row + j * d_.col]);
      c[at] = store_as<TC>(apply_elementwise(ew_, x));
    };
    // Walk C in memory order.
    if (p_.sig.lay.c == layout::row) {
      for (int i = 0; i < mb; ++i)
        for (int j = 0; j < nb; ++j) one(i, j);
    } else {
      for (int j = 0; j < nb; ++j)
        for (int i = 0; i < mb; ++i) one(i, j);
    }
  }

  const gemm_problem& p_;
  const gemm_args& args_;
  blocking blk_;
  matrix_strides a_, b_, c_, d_;
  bool preshuffled_;
  bool block_scaled_;
  int num_d_;
  elementwise ew_;
};

}  // namespace kdecl::kernels::host
