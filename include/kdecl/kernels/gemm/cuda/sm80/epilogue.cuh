// Epilogues of the cp_async kernel: out = ew(alpha*acc + beta*C_old + sum_i D_i).
//
//  * direct: each thread writes its own accumulators straight to global memory,
//    two adjacent columns at a time when C is row-major, bounds-checked.
//  * cshuffle: accumulators go through shared memory (reusing the main-loop
//    ring), then threads read runs of 16 bytes of C along its contiguous
//    dimension and load C_old / D and store C a run at a time.
//
// C and D may lie at any address, leading dimension and batch stride their dtype
// allows (the key's vector_bytes binds A and B only): a run moves as one vector
// where it is whole and aligned, else element by element (common/element_run.cuh).
// The cshuffle runs of each row start on C's aligned addresses, not the tile's,
// so a misaligned C still moves in vectors but for one run per row.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/gemm/cuda/common/element_run.cuh"
#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"

namespace kdecl::kernels::cuda::sm80 {

// N elements loaded or stored as one aligned access.
template <class T, int N>
struct alignas(sizeof(T) * N) vec_of {
  T v[N];
};

// C and the D tensors of one batch, and the fused operation on runs of elements.
template <class Cfg>
struct output_view {
  using tc = typename Cfg::tc;
  using acc_t = typename Cfg::acc_t;
  using index = typename Cfg::index_t;
  static constexpr int d_slots = Cfg::num_d > 0 ? Cfg::num_d : 1;

  tc* c;
  const tc* d[d_slots];
  // C's leading dimension, and each D tensor's own (a GEMM's share the problem's; 0 repeats one
  // row of D for every row of C: a convolution's bias, one value per output channel).
  std::int64_t ldc, ldd[d_slots];
  int m, n;
  float alpha, beta;
  bool rows_aligned;  // every C row (column, for column-major C) starts on a 16-byte boundary

  // Element (i, j) of C or D is segment `major` at position `minor` along C's contiguous dimension.
  __device__ tc* c_segment(int major) const { return c + static_cast<index>(major) * static_cast<index>(ldc); }
  __device__ const tc* d_segment(int t, int major) const {
    return d[t] + static_cast<index>(major) * static_cast<index>(ldd[t]);
  }

  // The run's N elements of segment `major` (C's row for row-major C, its column
  // otherwise), positions relative to `minor0`. `c_vector`: whole and aligned in C.
  template <int N>
  __device__ void store_run(int major, int minor0, const element_run<N>& run, bool c_vector,
                            const acc_t (&acc)[N]) const {
    tc* cs = c_segment(major) + minor0;
    float x[N];
#pragma unroll
    for (int e = 0; e < N; ++e) x[e] = alpha * static_cast<float>(acc[e]);
    if (beta != 0.0f) {  // C is not read when beta == 0 (it may hold garbage)
      float old[N] = {};
      load_run(cs, run, c_vector, old);
#pragma unroll
      for (int e = 0; e < N; ++e) x[e] += beta * old[e];
    }
#pragma unroll
    for (int t = 0; t < Cfg::num_d; ++t) {
      const tc* ds = d_segment(t, major) + minor0;
      float dv[N] = {};
      load_run(ds, run, run.whole() && vector_aligned<N>(ds + run.first), dv);
#pragma unroll
      for (int e = 0; e < N; ++e) x[e] += dv[e];
    }
    element_vec<tc, N> out;
#pragma unroll
    for (int e = 0; e < N; ++e) out.v[e] = from_float<tc>(apply_elementwise<Cfg::ew>(x[e]));
    cuda::store_run(cs, run, c_vector, out);
  }
};

// Registers -> global. m0/n0: the block's first row and column.
template <class Cfg, class Warp>
__device__ void direct_epilogue(const Warp& w, const output_view<Cfg>& out, int m0, int n0) {
  using acc_t = typename Cfg::acc_t;
  constexpr bool pairs = Warp::pairs_adjacent && Cfg::c_row;
  if constexpr (pairs) {
    w.for_each_pair([&](int r, int c, acc_t v0, acc_t v1) {
      const int i = m0 + r, j = n0 + c;
      if (Cfg::pad_m && i >= out.m) return;
      element_run<2> run;
      run.first = j;
      if (Cfg::pad_n) run.clip(out.n);
      if (run.valid == 0) return;
      const acc_t both[2] = {v0, v1};
      out.template store_run<2>(i, 0, run, run.whole() && vector_aligned<2>(out.c_segment(i) + j), both);
    });
  } else {
    w.for_each([&](int r, int c, acc_t v) {
      const int i = m0 + r, j = n0 + c;
      if ((Cfg::pad_m && i >= out.m) || (Cfg::pad_n && j >= out.n)) return;
      element_run<1> run;
      run.first = Cfg::c_row ? j : i;
      const acc_t one[1] = {v};
      out.template store_run<1>(Cfg::c_row ? i : j, 0, run, true, one);
    });
  }
}

// Registers -> shared (the whole block tile, fp32/int32) -> global in 16-byte runs of C.
// The caller has drained the cp.async ring and synchronised before this reuses it.
template <class Cfg, class Warp>
__device__ void cshuffle_epilogue(const Warp& w, const output_view<Cfg>& out, int m0, int n0, unsigned char* smem,
                                  int tid) {
  using acc_t = typename Cfg::acc_t;
  using tc = typename Cfg::tc;
  constexpr int major = Cfg::c_row ? Cfg::tile_m : Cfg::tile_n;  // C's strided dimension
  constexpr int minor = Cfg::c_row ? Cfg::tile_n : Cfg::tile_m;  // C's contiguous dimension
  constexpr int pitch = minor + cshuffle_pad(Cfg::sig.lay.c);
  acc_t* st = reinterpret_cast<acc_t*>(smem);

  if constexpr (Warp::pairs_adjacent && Cfg::c_row) {
    w.for_each_pair([&](int r, int c, acc_t v0, acc_t v1) {
      *reinterpret_cast<vec_of<acc_t, 2>*>(st + r * pitch + c) = vec_of<acc_t, 2>{{v0, v1}};
    });
  } else {
    w.for_each([&](int r, int c, acc_t v) { st[Cfg::c_row ? r * pitch + c : c * pitch + r] = v; });
  }
  __syncthreads();

  constexpr int run = 16 / int(sizeof(tc)) > 0 ? 16 / int(sizeof(tc)) : 1;  // elements per 16-byte access
  constexpr int read = run < 4 ? run : 4;                                  // staging read width
  constexpr int runs_per_row = minor / run;
  constexpr int runs = major * runs_per_row;
  static_assert(minor % run == 0, "a staged row is a whole number of 16-byte runs (config.cuh)");
  const int major_left = Cfg::c_row ? out.m - m0 : out.n - n0;
  const int minor_left = Cfg::c_row ? out.n - n0 : out.m - m0;
  const int major0 = Cfg::c_row ? m0 : n0, minor0 = Cfg::c_row ? n0 : m0;
  constexpr bool pad_minor = Cfg::c_row ? Cfg::pad_n : Cfg::pad_m;
  // Two copies of the loop: one for launches whose C rows all start aligned (the common
  // case: no alignment is computed), one that finds each row's head.
  const auto store_runs = [&](auto aligned_c) {
    constexpr bool aligned = decltype(aligned_c)::value;
    for (int v = tid; v < runs; v += Cfg::threads) {
      const int mj = v / runs_per_row, t = v % runs_per_row;
      if ((Cfg::c_row ? Cfg::pad_m : Cfg::pad_n) && mj >= major_left) continue;
      // Runs start on C's aligned addresses: all but the last one of the segment when C is misaligned.
      const int head = aligned ? 0 : head_elements<run>(out.c_segment(major0 + mj) + minor0);
      element_run<run> r = run_in_segment<run>(t, runs_per_row, head);
      if (pad_minor && minor_left < minor) r.clip(minor_left);
      if (r.valid == 0) continue;
      acc_t a[run];
      const acc_t* row = st + mj * pitch;
      if (aligned || head == 0) {  // C aligned here: vector reads of the staging row
#pragma unroll
        for (int e = 0; e < run; e += read) {
          const auto part = *reinterpret_cast<const vec_of<acc_t, read>*>(row + r.first + e);
#pragma unroll
          for (int q = 0; q < read; ++q) a[e + q] = part.v[q];
        }
      } else {
#pragma unroll
        for (int e = 0; e < run; ++e) a[e] = row[r.at(e)];
      }
      out.template store_run<run>(major0 + mj, minor0, r, r.whole(), a);
    }
  };
  if (out.rows_aligned) {
    store_runs(std::true_type{});
  } else {
    store_runs(std::false_type{});
  }
}

}  // namespace kdecl::kernels::cuda::sm80
