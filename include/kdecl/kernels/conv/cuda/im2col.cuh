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
// Memory-bound; the outer index is decoded once per chunk.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"

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

template <class T>
__global__ void __launch_bounds__(256) im2col_kernel(const T* __restrict__ in, T* __restrict__ col,
                                                     const __grid_constant__ im2col_geometry g, bool whole_chunks) {
  constexpr int per_chunk = int(16 / sizeof(T));
  const std::int64_t chunks_per_row = g.ld / per_chunk;
  const std::int64_t rows = g.rows(), chunks = g.groups * rows * chunks_per_row;
  const std::int64_t width = g.width();
  for (std::int64_t chunk = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; chunk < chunks;
       chunk += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t j0 = (chunk % chunks_per_row) * per_chunk;
    const std::int64_t row_of_all = chunk / chunks_per_row;
    const std::int64_t group = row_of_all / rows, row = row_of_all % rows;
    std::int64_t pos = row % g.out_positions();
    const std::int64_t image = row / g.out_positions();
    std::int64_t o[3];
    o[2] = pos % g.out[2];
    pos /= g.out[2];
    o[1] = pos % g.out[1];
    o[0] = pos / g.out[1];
    const T* base = in + image * g.in_image + group * g.in_group;
    // Tap and channel of column j0, then stepped one column at a time.
    std::int64_t tap = j0 / g.channels, c = j0 % g.channels;
    alignas(16) T values[per_chunk];
    auto at = [&](std::int64_t t, std::int64_t ch, bool& inside) -> const T* {
      const std::int64_t t2 = t % g.filter[2], t1 = (t / g.filter[2]) % g.filter[1], t0 = t / (g.filter[2] * g.filter[1]);
      const std::int64_t i0 = o[0] * g.stride[0] - g.pad_left[0] + t0 * g.dilation[0];
      const std::int64_t i1 = o[1] * g.stride[1] - g.pad_left[1] + t1 * g.dilation[1];
      const std::int64_t i2 = o[2] * g.stride[2] - g.pad_left[2] + t2 * g.dilation[2];
      inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
      return base + i0 * g.in_pos[0] + i1 * g.in_pos[1] + i2 * g.in_pos[2] + ch;
    };
    if (whole_chunks && j0 < width) {  // one tap's channels: one 16-byte load
      bool inside = false;
      const T* src = at(tap, c, inside);
      const uint4 v = inside ? *reinterpret_cast<const uint4*>(src) : make_uint4(0, 0, 0, 0);
      *reinterpret_cast<uint4*>(values) = v;
    } else {
      for (int e = 0; e < per_chunk; ++e) {
        T v{};
        if (j0 + e < width) {
          bool inside = false;
          const T* src = at(tap, c, inside);
          if (inside) v = *src;
          if (++c == g.channels) {
            c = 0;
            ++tap;
          }
        }
        values[e] = v;
      }
    }
    *reinterpret_cast<uint4*>(col + group * rows * g.ld + row * g.ld + j0) = *reinterpret_cast<const uint4*>(values);
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
template <class T>
inline status im2col(const T* in, T* col, const im2col_geometry& g, cudaStream_t stream) {
  static_assert(16 % sizeof(T) == 0, "im2col moves 16-byte chunks");
  const std::int64_t v = 16 / std::int64_t(sizeof(T));
  if (g.ld % v != 0 || g.ld < g.width() || reinterpret_cast<std::uintptr_t>(col) % 16 != 0 || g.channels <= 0)
    return status::error("im2col: the columns' row stride must hold taps x C/G and be a multiple of 16 bytes, the "
                         "columns 16-byte aligned");
  const std::int64_t chunks = g.groups * g.rows() * (g.ld / v);
  if (chunks == 0) return status::ok();
  const int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((chunks + threads - 1) / threads, std::int64_t(1) << 20);
  im2col_kernel<T><<<unsigned(blocks), threads, 0, stream>>>(in, col, g, im2col_whole_chunks(in, g));
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return status::error(std::string("im2col launch: ") + cudaGetErrorString(e));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
