// Global -> shared copy of the forward convolution's A operand (the im2col
// matrix, never materialised): row m of the block tile is output pixel
// (n, od, oh, ow), column kk is (filter tap, input channel c) with c fastest,
// and A(m, kk) = input(n, o*stride - pad + tap*dilation, group, c), zero
// outside the input. The tile lands in the same swizzled K-major layout as the
// GEMM's tile_loader, so the GEMM's warps read it unchanged.
//
// Each thread copies Vec-byte vectors along c with cp.async (zero-filled when
// the tap falls into the padding or past the last row or k); a vector never
// straddles two taps because C/G is a multiple of the vector (why_not checks it).
// The output pixel of every row a thread copies is decoded once, at construction;
// the index arithmetic is im2col_index.hpp's (tested on the host).
#pragma once

#include <cstdint>

#include "kdecl/kernels/conv/im2col_index.hpp"
#include "kdecl/kernels/cuda/sm80/ptx.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/smem_layout.cuh"

namespace kdecl::kernels::cuda::sm80 {

template <class T, int TileM, int TileK, int Vec, int Threads>
class im2col_loader {
 public:
  static constexpr int vec_elems = Vec / int(sizeof(T));
  static constexpr int vecs_per_row = TileK / vec_elems;
  static constexpr int vecs = TileM * vecs_per_row;
  static constexpr int iters = (vecs + Threads - 1) / Threads;
  using layout = swizzled_tile<TileM, TileK * int(sizeof(T))>;
  static_assert(TileK % vec_elems == 0, "a tile row must be a whole number of vectors");

  // in: the input of this block's group; m0: the block's first row.
  __device__ im2col_loader(const conv_gather_geometry& geo, const T* in, int m0, int tid)
      : geo_(geo), in_(in), tid_(tid) {
#pragma unroll
    for (int it = 0; it < iters; ++it) {
      const int v = tid + it * Threads;
      const int m = m0 + v / vecs_per_row;
      valid_[it] = v < vecs && m < geo.m;
      row_[it] = im2col_row_of(geo, valid_[it] ? m : 0);
    }
  }

  // Issue the copies of k tile `kt` into the stage at shared address `stage`.
  __device__ void load(std::uint32_t stage, int kt) const {
#pragma unroll
    for (int it = 0; it < iters; ++it) {
      const int v = tid_ + it * Threads;
      if (vecs % Threads != 0 && v >= vecs) break;
      const int r = v / vecs_per_row;
      const int c = (v % vecs_per_row) * vec_elems;
      const int kk = kt * TileK + c;
      const T* src = in_;
      int bytes = 0;
      std::int64_t at = 0;
      if (valid_[it] && kk < geo_.k && im2col_offset(geo_, row_[it], kk, at)) {
        src = in_ + at;
        bytes = Vec;
      }
      // With 0 valid bytes nothing is read (cp.async zero-fills); src stays a valid address anyway.
      cp_async<Vec>(stage + layout::offset(r, c * int(sizeof(T))), src, bytes);
    }
  }

 private:
  const conv_gather_geometry& geo_;
  const T* in_;
  int tid_;
  bool valid_[iters];
  im2col_row row_[iters];  // each copied row's image offset and first tap position
};

}  // namespace kdecl::kernels::cuda::sm80
