// Where each row of C starts, as an element offset from C of its batch. The GEMM's
// rows are one leading dimension apart (linear_rows). A convolution whose output
// pixels are not evenly strided (a stride phase of backward-data writes every
// stride-th pixel of dx) passes its own map, any type with the same call operator
// (kernels/conv/pixel_rows.hpp: pixel_row_map); the epilogues (epilogue_cshuffle.cuh,
// epilogue_direct.cuh, split_k.cuh) take either. A map may also leave gaps: rows the
// mainloop computes that are no output (has_gaps, stored(row) false), as the halo
// tiles' pixels past the output's edge (kernels/conv/halo_tiles.hpp); the epilogues
// skip them.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/epilogue_math.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct linear_rows {
  static constexpr bool has_gaps = false;
  std::int64_t ld;
  __host__ __device__ constexpr std::int64_t operator()(int row) const { return std::int64_t(row) * ld; }
};

// Row `row`'s offset: for linear rows in the key's index type (32-bit products where the
// key allows them: the GEMM's code is the same as before maps existed), else the map's.
template <gemm_key K, class Rows>
__device__ __forceinline__ index_t<K> row_offset(const Rows& rows, int row) {
  if constexpr (std::is_same_v<Rows, linear_rows>) {
    return static_cast<index_t<K>>(row) * static_cast<index_t<K>>(rows.ld);
  } else {
    return static_cast<index_t<K>>(rows(row));
  }
}

// Whether row `row` (below M) is an output row: always, unless the map has gaps.
template <class Rows>
__device__ __forceinline__ bool row_stored(const Rows& rows, int row) {
  if constexpr (Rows::has_gaps) {
    return rows.stored(row);
  } else {
    return true;
  }
}

}  // namespace kdecl::kernels::cuda::sm90
