// The input of a convolution gathered into its implicit GEMM's A, explicitly: for each group g,
// row r = (image, output position) and column j = (tap z, y, x; channel c) of the group,
//   col[g][r][j] = in[image, g, c, position * stride - pad_left + tap * dilation]
// (zero where that position is outside the input), rows ld elements apart, groups rows x ld.
// Columns from taps x C/G up to ld are left as they are: a TMA load of A stops at the GEMM's K.
// The sm_90 fp8 forward convolution (sm90/conv_fwd_fp8_sm90.cuh) runs its GEMMs on it, and packs
// weights whose taps x C/G are not contiguous with the same kernel (a filter that covers its
// whole "image": one row per output channel).
//
// One thread per 16-byte chunk of a row: where C/G, the strides and the input pointer allow,
// a chunk is one tap's channels and one 16-byte load; else it is gathered element by element.
// Meant to be memory-bound: no 64-bit division in the decode (see im2col_divisors).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/fast_divmod.cuh"

namespace kdecl::kernels::cuda {

struct im2col_geometry {
  std::int64_t images = 1, groups = 1;
  std::int64_t out[3]{1, 1, 1};        // output positions per dimension (D, H, W)
  std::int64_t in[3]{1, 1, 1};         // input positions per dimension
  std::int64_t filter[3]{1, 1, 1};     // taps per dimension
  std::int64_t stride[3]{1, 1, 1}, dilation[3]{1, 1, 1}, pad_left[3]{};
  std::int64_t in_image = 0, in_group = 0, in_pos[3]{};  // input strides (elements; channels contiguous)
  std::int64_t channels = 0;           // C/G
  std::int64_t ld = 0;                 // col's row stride (elements), >= taps x channels
  __host__ __device__ std::int64_t out_positions() const { return out[0] * out[1] * out[2]; }
  __host__ __device__ std::int64_t taps() const { return filter[0] * filter[1] * filter[2]; }
  __host__ __device__ std::int64_t width() const { return taps() * channels; }
  __host__ __device__ std::int64_t rows() const { return images * out_positions(); }
};

// The index arithmetic of a launch: where the chunk count fits in 31 bits (every layer of the
// shipped lists), each division by a geometry extent is fast_divmod's multiply-high; else plain
// 64-bit division. (64-bit division by a run-time value is a subroutine of ~70 instructions: the
// chunk's decode took about ten of them, which made the gather compute-bound, not memory-bound.)
struct im2col_narrow_division {  // numbers below 2^31
  fast_divmod f;
  __host__ __device__ std::int64_t div(std::int64_t n) const { return f.div(int(n)); }
};
struct im2col_wide_division {
  std::int64_t d = 1;
  __host__ __device__ std::int64_t div(std::int64_t n) const { return n / d; }
};
template <class Division>
struct im2col_divisors {
  Division chunks_per_row, rows, out_positions, out2, out1;
  fast_divmod channels, filter2, filter1;  // a row's columns: taps x C/G, below 2^31
};
template <class Division>
inline im2col_divisors<Division> im2col_divisors_of(const im2col_geometry& g, std::int64_t chunks_per_row) {
  auto d = [](std::int64_t v) {
    if constexpr (std::is_same_v<Division, im2col_narrow_division>) return Division{fast_divmod(int(v))};
    else return Division{v};
  };
  return {d(chunks_per_row), d(g.rows()), d(g.out_positions()), d(g.out[2]), d(g.out[1]),
          fast_divmod(int(g.channels)), fast_divmod(int(g.filter[2])), fast_divmod(int(g.filter[1]))};
}

// One thread per 16-byte chunk of a row (grid-stride). The chunk's row is decoded once; its first
// column's tap once (by 32-bit division: taps x C/G is a row's width); an element-wise chunk then
// steps channel by channel, carrying into the tap's x, y and z, with no division.
template <class T, class Division>
__global__ void __launch_bounds__(256) im2col_kernel(const T* __restrict__ in, T* __restrict__ col,
                                                     const __grid_constant__ im2col_geometry g,
                                                     const __grid_constant__ im2col_divisors<Division> d,
                                                     bool whole_chunks) {
  constexpr int per_chunk = int(16 / sizeof(T));
  const std::int64_t chunks_per_row = g.ld / per_chunk, rows = g.rows(), chunks = g.groups * rows * chunks_per_row;
  const int width = int(g.width()), channels = int(g.channels);
  const int f1 = int(g.filter[1]), f2 = int(g.filter[2]);
  for (std::int64_t chunk = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; chunk < chunks;
       chunk += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t row_of_all = d.chunks_per_row.div(chunk);
    const int j0 = int(chunk - row_of_all * chunks_per_row) * per_chunk;
    const std::int64_t group = d.rows.div(row_of_all);
    const std::int64_t row = row_of_all - group * rows;
    const std::int64_t image = d.out_positions.div(row);
    const std::int64_t pos = row - image * g.out_positions();
    const std::int64_t pos01 = d.out2.div(pos);
    const std::int64_t o2 = pos - pos01 * g.out[2];
    const std::int64_t o0 = d.out1.div(pos01), o1 = pos01 - o0 * g.out[1];
    // The window's origin: input position of tap (0, 0, 0).
    const std::int64_t b0 = o0 * g.stride[0] - g.pad_left[0], b1 = o1 * g.stride[1] - g.pad_left[1],
                       b2 = o2 * g.stride[2] - g.pad_left[2];
    const T* base = in + image * g.in_image + group * g.in_group;
    alignas(16) T values[per_chunk];
    if (j0 < width) {
      const int tap = d.channels.div(j0), t01 = d.filter2.div(tap);
      int c = j0 - tap * channels, t2 = tap - t01 * f2, t0 = d.filter1.div(t01), t1 = t01 - t0 * f1;
      auto at = [&](bool& inside) -> const T* {
        const std::int64_t i0 = b0 + t0 * g.dilation[0], i1 = b1 + t1 * g.dilation[1], i2 = b2 + t2 * g.dilation[2];
        inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
        return base + i0 * g.in_pos[0] + i1 * g.in_pos[1] + i2 * g.in_pos[2] + c;
      };
      if (whole_chunks) {  // one tap's channels: one 16-byte load
        bool inside = false;
        const T* src = at(inside);
        *reinterpret_cast<uint4*>(values) = inside ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
      } else {
        bool inside = false;
        const T* src = at(inside);
#pragma unroll
        for (int e = 0; e < per_chunk; ++e) {
          T v{};
          if (j0 + e < width) {
            if (inside) v = *src;
            ++src;
            if (++c == channels) {  // the next tap: x, then y, then z
              c = 0;
              if (++t2 == f2) {
                t2 = 0;
                if (++t1 == f1) {
                  t1 = 0;
                  ++t0;
                }
              }
              src = at(inside);
            }
          }
          values[e] = v;
        }
      }
    } else {
#pragma unroll
      for (int e = 0; e < per_chunk; ++e) values[e] = T{};  // columns past taps x C/G, up to ld
    }
    *reinterpret_cast<uint4*>(col + group * rows * g.ld + row * g.ld + j0) =
        *reinterpret_cast<const uint4*>(values);
  }
}

// Whether every chunk of a row is one tap's channels that one aligned 16-byte load reads.
template <class T>
inline bool im2col_whole_chunks(const T* in, const im2col_geometry& g) {
  const std::int64_t v = 16 / std::int64_t(sizeof(T));
  bool whole = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && g.channels % v == 0 && g.in_image % v == 0 &&
               g.in_group % v == 0;
  for (int d = 0; d < 3; ++d) whole = whole && g.in_pos[d] % v == 0;
  return whole;
}

// Gathers `in` into `col` (16-byte aligned, ld a multiple of 16 bytes) on `stream`.
// wide_indices: 64-bit division even where the chunks fit in 31 bits (tests/gpu/im2col_gpu_test.cu).
template <class T>
inline status im2col(const T* in, T* col, const im2col_geometry& g, cudaStream_t stream, bool wide_indices = false) {
  static_assert(16 % sizeof(T) == 0, "im2col moves 16-byte chunks");
  const std::int64_t v = 16 / std::int64_t(sizeof(T));
  if (g.ld % v != 0 || g.ld < g.width() || reinterpret_cast<std::uintptr_t>(col) % 16 != 0 || g.channels <= 0)
    return status::error("im2col: the columns' row stride must hold taps x C/G and be a multiple of 16 bytes, the "
                         "columns 16-byte aligned");
  const std::int64_t chunks = g.groups * g.rows() * (g.ld / v);
  if (chunks == 0) return status::ok();
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((chunks + threads - 1) / threads, std::int64_t(1) << 20);
  const std::int64_t chunks_per_row = g.ld / v;
  const bool whole = im2col_whole_chunks(in, g);
  // fast_divmod divides numbers below 2^31: the chunks (and so every row and position) must be.
  if (chunks < (std::int64_t(1) << 31) && !wide_indices)
    im2col_kernel<T, im2col_narrow_division><<<unsigned(blocks), threads, 0, stream>>>(
        in, col, g, im2col_divisors_of<im2col_narrow_division>(g, chunks_per_row), whole);
  else
    im2col_kernel<T, im2col_wide_division><<<unsigned(blocks), threads, 0, stream>>>(
        in, col, g, im2col_divisors_of<im2col_wide_division>(g, chunks_per_row), whole);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("im2col launch: ") + cudaGetErrorString(e));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
