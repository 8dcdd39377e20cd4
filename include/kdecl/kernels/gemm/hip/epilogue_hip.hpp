// The fused epilogue of the HIP GEMM: C = ew(alpha*acc + beta*C_old + sum_i D_i).
//
// output_view writes one element or one contiguous run of C, reading C_old only
// when beta != 0 and the D tensors only when the key has them. Its rows start at
// row * ldc (ldd[i] for D i; a convolution's bias is a D of leading dimension 0),
// or where a row map puts them (a convolution's output pixels, kernels/conv/hip/). Two strategies
// feed it from the MFMA accumulators:
//  * direct: every lane writes its accumulators where they live. A 32x32 MFMA
//    tile puts one column per lane, so each store instruction covers 32
//    consecutive columns of two rows: scalar but reasonably coalesced.
//  * cshuffle: each wave stages one warp tile of accumulators in its own LDS
//    slice, then reads it back row-wise so that every lane handles c_vector
//    consecutive columns: C_old, D and C move as vectors of up to vector_bytes.
#pragma once

#include <hip/hip_runtime.h>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/hip/elementwise_hip.hpp"
#include "kdecl/kernels/gemm/hip/gemm_hip_geometry.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"
#include "kdecl/kernels/hip/mfma.hpp"
#include "kdecl/kernels/hip/raw_bytes.hpp"

namespace kdecl::kernels::hip {

// Where a row of C or D starts: row * its leading dimension (a matrix).
struct strided_rows {
  __device__ long long operator()(int row, int ld) const { return static_cast<long long>(row) * ld; }
};

template <gemm_key K, class RowMap = strided_rows>
struct output_view {
  static constexpr dtype c_dtype = K.sig.c;
  static constexpr int num_d = K.sig.num_d;
  static constexpr bool check_m = K.algo.pad_m == tristate::yes;
  static constexpr bool check_n = K.algo.pad_n == tristate::yes;
  using C = storage_t<c_dtype>;
  using acc_elem = accumulator_t<K.sig.acc>;
  using V = epilogue_t<K.sig.acc>;

  C* c;                                 // this batch entry's C
  const C* d[num_d > 0 ? num_d : 1];    // this batch entry's D tensors
  int ldc, m, n;
  int ldd[num_d > 0 ? num_d : 1];       // per D tensor
  V alpha, beta;
  RowMap rows{};                        // (row, leading dimension) -> the row's first element

  __device__ bool inside(int row, int col) const { return (!check_m || row < m) && (!check_n || col < n); }

  __device__ C finish(acc_elem acc, V c_old, V d_sum) const {
    V v = alpha * static_cast<V>(acc) + d_sum;
    if (beta != V(0)) v += beta * c_old;
    return from_epilogue<c_dtype, V>(apply_elementwise<K.sig.ew, V>(v));
  }

  // One element at (row, col); the caller has checked bounds.
  __device__ void write_one(int row, int col, acc_elem acc) const {
    const long long at = rows(row, ldc) + col;
    const V c_old = beta != V(0) ? to_epilogue<c_dtype, V>(c[at]) : V(0);
    V d_sum = V(0);
#pragma unroll
    for (int i = 0; i < num_d; ++i) d_sum += to_epilogue<c_dtype, V>(d[i][rows(row, ldd[i]) + col]);
    c[at] = finish(acc, c_old, d_sum);
  }

  // W consecutive elements starting at (row, col), col a multiple of W. Vector
  // accesses when the run lies wholly inside C, element-wise at the right edge.
  template <int W>
  __device__ void write_run(int row, int col, const acc_elem (&acc)[W]) const {
    constexpr int bytes = W * static_cast<int>(sizeof(C));
    if (check_m && row >= m) return;
    if (check_n && col + W > n) {
#pragma unroll
      for (int e = 0; e < W; ++e)
        if (col + e < n) write_one(row, col + e, acc[e]);
      return;
    }
    raw_bytes<bytes> old;
    old.words = zero_bytes<bytes>().words;
    C* const at = c + rows(row, ldc) + col;
    if (beta != V(0)) old.words = load_bytes<bytes>(at).words;
    V d_sum[W];
#pragma unroll
    for (int e = 0; e < W; ++e) d_sum[e] = V(0);
#pragma unroll
    for (int i = 0; i < num_d; ++i) {
      const raw_bytes<bytes> dv = load_bytes<bytes>(d[i] + rows(row, ldd[i]) + col);
#pragma unroll
      for (int e = 0; e < W; ++e) d_sum[e] += to_epilogue<c_dtype, V>(dv.template get<C>(e));
    }
    raw_bytes<bytes> out;
#pragma unroll
    for (int e = 0; e < W; ++e)
      out.template set<C>(e, finish(acc[e], to_epilogue<c_dtype, V>(old.template get<C>(e)), d_sum[e]));
    store_bytes<bytes>(at, out);
  }
};

// Accumulators of one wave: rep_m x rep_n MFMA output tiles.
template <gemm_key K>
struct wave_accumulators {
  static constexpr hip_gemm_geometry geo = geometry_of(K);
  using mfma = mfma_op<K.sig.a, K.algo.arch, K.algo.warp_tile.m>;
  typename mfma::acc_t tile[geo.rep_m][geo.rep_n];

  __device__ void clear() {
#pragma unroll
    for (int rm = 0; rm < geo.rep_m; ++rm)
#pragma unroll
      for (int rn = 0; rn < geo.rep_n; ++rn)
#pragma unroll
        for (int v = 0; v < mfma::acc_count; ++v) tile[rm][rn][v] = 0;
  }
};

// direct: registers -> global. (row0, col0) is the wave's first element in C. The accumulators
// are those of the main loop's key, which may differ from K in C's dtype only (a convolution's
// fp32 partials: kernels/conv/hip/conv_hip.hpp).
template <gemm_key K, class RowMap, gemm_key AccKey>
__device__ void epilogue_direct(const output_view<K, RowMap>& out, const wave_accumulators<AccKey>& acc, int row0,
                                int col0, int lane) {
  using W = wave_accumulators<AccKey>;
  static_assert(W::geo.rep_m == geometry_of(K).rep_m && W::geo.rep_n == geometry_of(K).rep_n);
  constexpr int mn = K.algo.warp_tile.m;
#pragma unroll
  for (int rm = 0; rm < W::geo.rep_m; ++rm)
#pragma unroll
    for (int rn = 0; rn < W::geo.rep_n; ++rn)
#pragma unroll
      for (int v = 0; v < W::mfma::acc_count; ++v) {
        const int row = row0 + rm * mn + mfma_out_row<mn>(v, lane);
        const int col = col0 + rn * mn + lane % mn;
        if (out.inside(row, col)) out.write_one(row, col, acc.tile[rm][rn][v]);
      }
}

// cshuffle: registers -> LDS (one warp tile per wave at a time) -> row-wise vectors -> global.
// `smem` is the block's LDS; the main loop must be finished with it.
template <gemm_key K, class RowMap, gemm_key AccKey>
__device__ void epilogue_cshuffle(const output_view<K, RowMap>& out, const wave_accumulators<AccKey>& acc, int row0,
                                  int col0, int lane, int wave, unsigned char* smem) {
  using W = wave_accumulators<AccKey>;
  static_assert(W::geo.rep_m == geometry_of(K).rep_m && W::geo.rep_n == geometry_of(K).rep_n);
  using acc_elem = typename output_view<K, RowMap>::acc_elem;
  constexpr int mn = K.algo.warp_tile.m;
  constexpr int row_len = geometry_of(K).shuffle_row;
  constexpr int vec = geometry_of(K).c_vector;  // the output's access width
  constexpr int runs_per_row = mn / vec;
  constexpr int runs = mn * runs_per_row;
  constexpr int rounds = (runs + wave_size - 1) / wave_size;
  acc_elem* stage = reinterpret_cast<acc_elem*>(smem) + wave * mn * row_len;

  __syncthreads();  // every wave has finished reading the main loop's tiles
#pragma unroll
  for (int rm = 0; rm < W::geo.rep_m; ++rm)
#pragma unroll
    for (int rn = 0; rn < W::geo.rep_n; ++rn) {
#pragma unroll
      for (int v = 0; v < W::mfma::acc_count; ++v)
        stage[mfma_out_row<mn>(v, lane) * row_len + lane % mn] = acc.tile[rm][rn][v];
      __syncthreads();
#pragma unroll
      for (int r = 0; r < rounds; ++r) {
        const int run = lane + r * wave_size;
        if (runs % wave_size != 0 && run >= runs) break;
        const int row = run / runs_per_row;
        const int col = (run % runs_per_row) * vec;
        acc_elem vals[vec];
#pragma unroll
        for (int e = 0; e < vec; ++e) vals[e] = stage[row * row_len + col + e];
        out.template write_run<vec>(row0 + rm * mn + row, col0 + rn * mn + col, vals);
      }
      __syncthreads();  // the slice is rewritten by the next warp tile
    }
}

}  // namespace kdecl::kernels::hip
