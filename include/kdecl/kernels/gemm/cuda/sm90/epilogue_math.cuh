// The per-element math every sm90 epilogue shares, on runs of 1, 2 or 4 outputs
// of one row:
//   phase 1 (loads only):  v = alpha * acc + beta * C_old + sum_i D_i   (beta == 0: C_old not read)
//   phase 2 (stores only): C = ew(v)
//
// C and D may lie at any address, leading dimension and batch stride their dtype
// allows: runs (common/element_run.cuh) move as vectors only where whole and aligned.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/gemm/cuda/common/element_run.cuh"
#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/gemm_sm90_params.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Element offsets inside one matrix (gemm_algorithm::index_bits).
template <gemm_key K>
using index_t = std::conditional_t<K.algo.index_bits == 64, std::int64_t, std::int32_t>;

// v = alpha * v + beta * C_old + sum_i D_i over one run. `c_row`: C's row; `c_vector`:
// the run is whole and aligned in C; load_d(i, d): the run's values of D tensor i.
template <gemm_key K, int Count, class Out, class LoadD>
__device__ __forceinline__ void combine_inputs(float* v, const Out* c_row, const element_run<Count>& run,
                                               bool c_vector, const gemm_sm90_params& p, LoadD&& load_d) {
  constexpr int num_d = K.sig.variant == gemm_variant::multi_d ? K.sig.num_d : 0;
#pragma unroll
  for (int e = 0; e < Count; ++e) v[e] *= p.alpha;
  if (p.beta != 0.0f) {
    float old[Count] = {};
    load_run(c_row, run, c_vector, old);
#pragma unroll
    for (int e = 0; e < Count; ++e) v[e] += p.beta * old[e];
  }
#pragma unroll
  for (int i = 0; i < num_d; ++i) {
    float d[Count] = {};
    load_d(i, d);
#pragma unroll
    for (int e = 0; e < Count; ++e) v[e] += d[e];
  }
}

// Element (row, col) of D tensor i of this batch in global memory: at d[i] + batch * stride_d[i] +
// row * ldd[i] + col, or, where bit i of params.d_at_c is set, at C's own offset of that element
// (`c_offset`, batch included).
template <gemm_key K, class Out>
__device__ __forceinline__ const Out* d_element(const gemm_sm90_params& p, int i, int batch, int row, int col,
                                                std::int64_t c_offset) {
  const Out* d_base = static_cast<const Out*>(p.d[i]);
  return (p.d_at_c >> i & 1u) != 0
             ? d_base + c_offset
             : d_base + batch * p.stride_d[i] + static_cast<index_t<K>>(row) * static_cast<index_t<K>>(p.ldd[i]) + col;
}

// D read from global memory: row `row` of D tensor i of this batch (its own ld and
// alignment, so its vector test is its own), or the element at C's offset (params.d_at_c).
template <gemm_key K, int Count, class Out>
__device__ __forceinline__ void gather_inputs(float* v, const Out* c_row, const element_run<Count>& run,
                                              bool c_vector, const gemm_sm90_params& p, int batch, int row,
                                              int col0) {
  combine_inputs<K, Count>(v, c_row, run, c_vector, p, [&](int i, float* d) {
    const Out* d_row = d_element<K, Out>(p, i, batch, row, col0, c_row - static_cast<const Out*>(p.c));
    load_run(d_row, run, run.whole() && vector_aligned<Count>(d_row + run.first), d);
  });
}

template <gemm_key K, int Count, class Out>
__device__ __forceinline__ void store_outputs(const float* v, Out* c_row, const element_run<Count>& run,
                                              bool c_vector) {
  element_vec<Out, Count> out;
#pragma unroll
  for (int e = 0; e < Count; ++e) out.v[e] = from_float<Out>(apply_elementwise<K.sig.ew>(v[e]));
  store_run(c_row, run, c_vector, out);
}

}  // namespace kdecl::kernels::cuda::sm90
