// The flipped, transposed weights a backward-data runs its forward equivalent
// with (kernels/conv/bwd_data_as_forward.hpp; per stride phase, that phase's
// taps: bwd_data_phases.hpp, all phases in one launch): for each group and filter
// tap, a (K/G) x (C/G) matrix written as (C/G) x (K/G) through a shared-memory
// tile, so that both the reads (along c) and the writes (along k) are coalesced.
// Every loop strides over the grid: any K/G, C/G, G and taps.
//
// Two kernels: where every row, offset and pointer allows 16-byte vectors (C/G and K/G
// multiples of 8 two-byte elements, the usual case), 64 x 64 tiles moved in 16-byte
// vectors; else 32 x 32 tiles element by element. The copy is pure traffic (the
// weights read and written once): a deep layer's weights (a U-Net bottleneck's 3x3
// 1024 -> 1024: 18.9 MB) make it a large share of a small batch's backward-data.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/kernels/conv/bwd_data_as_forward.hpp"

namespace kdecl::kernels::cuda {

inline constexpr int flip_transpose_tile = 32;
inline constexpr int flip_transpose_rows = 8;  // threads per tile column: each copies 4 rows

// Several copies in one launch (the stride phases of one layer): map j writes at wt + offset[j].
inline constexpr int flip_transpose_batch_max = 8;
struct flipped_weights_batch {
  flipped_weights_map map[flip_transpose_batch_max];
  std::int64_t offset[flip_transpose_batch_max];  // elements from wt
  int count = 0;

  // (groups x taps) matrices over every map: the grid's z range.
  __host__ __device__ std::int64_t matrices() const {
    std::int64_t n = 0;
    for (int j = 0; j < count; ++j) n += std::int64_t(map[j].groups) * map[j].taps;
    return n;
  }
};

// Copy z of a batch: its map, and the first element of its matrix on both sides, found once per
// matrix so that the per-element offsets are a multiply-add (the tap decomposition's divisions
// would otherwise dominate the copy).
template <class T>
struct flip_matrix {
  const flipped_weights_map* m;
  const T* src;
  T* dst;
};
template <class T>
__device__ flip_matrix<T> flip_matrix_of(const flipped_weights_batch& b, std::int64_t z, const T* w, T* wt) {
  int j = 0;
  for (; z >= std::int64_t(b.map[j].groups) * b.map[j].taps; ++j) z -= std::int64_t(b.map[j].groups) * b.map[j].taps;
  const flipped_weights_map& m = b.map[j];
  const int g = int(z / m.taps), tap = int(z % m.taps);
  return {&m, w + m.source(g, 0, 0, tap), wt + b.offset[j] + m.destination(g, 0, 0, tap)};
}

template <class T>
__global__ void __launch_bounds__(flip_transpose_tile * flip_transpose_rows)
    flip_transpose_weights_kernel(const T* __restrict__ w, T* __restrict__ wt,
                                  const __grid_constant__ flipped_weights_batch b) {
  allow_dependent_launch();  // the convolution after this pre-pass may start (dependent_launch.cuh)
  constexpr int tile = flip_transpose_tile;
  __shared__ T staged[tile][tile + 1];  // +1: the column reads of the write pass hit distinct banks
  const std::int64_t matrices = b.matrices();
  for (std::int64_t z = blockIdx.z; z < matrices; z += gridDim.z) {
    const auto [mp, src, dst] = flip_matrix_of(b, z, w, wt);
    const flipped_weights_map& m = *mp;
    const int k_tiles = (m.kg + tile - 1) / tile, c_tiles = (m.cg + tile - 1) / tile;
    for (int ky = blockIdx.y; ky < k_tiles; ky += gridDim.y)
      for (int cx = blockIdx.x; cx < c_tiles; cx += gridDim.x) {
        const int k0 = ky * tile, c0 = cx * tile;
        for (int i = threadIdx.y; i < tile; i += flip_transpose_rows) {
          const int k = k0 + i, c = c0 + int(threadIdx.x);
          if (k < m.kg && c < m.cg) staged[i][threadIdx.x] = src[k * m.src_k + c];
        }
        __syncthreads();
        for (int i = threadIdx.y; i < tile; i += flip_transpose_rows) {
          const int c = c0 + i, k = k0 + int(threadIdx.x);
          if (k < m.kg && c < m.cg) dst[c * m.dst_c + k] = staged[threadIdx.x][i];
        }
        __syncthreads();
      }
  }
}

// The vector kernel's tile: 64 x 64 elements, read as rows of eight 16-byte vectors along c,
// written as rows of eight along k. Shared memory holds it transposed ([c][k]) with rows of 66
// elements (33 words): the scattered two-byte stores meet at most two to a bank, the
// four-word row reads none.
inline constexpr int flip_vector_tile = 64;
inline constexpr int flip_vector_threads = 256;

template <class T>
__global__ void __launch_bounds__(flip_vector_threads)
    flip_transpose_weights_vector_kernel(const T* __restrict__ w, T* __restrict__ wt,
                                         const __grid_constant__ flipped_weights_batch b) {
  static_assert(sizeof(T) == 2, "the vector copy moves two-byte elements eight to a vector");
  allow_dependent_launch();
  constexpr int tile = flip_vector_tile, vec = 8, pitch = tile + 2;
  constexpr int rows_per_pass = flip_vector_threads / (tile / vec);  // 32
  __shared__ __align__(16) T staged[tile][pitch];                     // [c][k]
  const int row = int(threadIdx.x) / (tile / vec), chunk = int(threadIdx.x) % (tile / vec);
  const std::int64_t matrices = b.matrices();
  for (std::int64_t z = blockIdx.z; z < matrices; z += gridDim.z) {
    const auto [mp, src, dst] = flip_matrix_of(b, z, w, wt);
    const flipped_weights_map& m = *mp;
    const int k_tiles = (m.kg + tile - 1) / tile, c_tiles = (m.cg + tile - 1) / tile;
    for (int ky = blockIdx.y; ky < k_tiles; ky += gridDim.y)
      for (int cx = blockIdx.x; cx < c_tiles; cx += gridDim.x) {
        const int k0 = ky * tile, c0 = cx * tile;
        // Both reads in flight before either is scattered (C/G and K/G are multiples of 8: a
        // vector is wholly inside or wholly outside the matrix).
        uint4 v[tile / rows_per_pass];
#pragma unroll
        for (int i = 0; i < tile / rows_per_pass; ++i) {
          const int k = k0 + row + i * rows_per_pass, c = c0 + chunk * vec;
          v[i] = k < m.kg && c < m.cg ? *reinterpret_cast<const uint4*>(src + k * m.src_k + c) : uint4{};
        }
#pragma unroll
        for (int i = 0; i < tile / rows_per_pass; ++i) {
          const T* e = reinterpret_cast<const T*>(&v[i]);
#pragma unroll
          for (int x = 0; x < vec; ++x) staged[chunk * vec + x][row + i * rows_per_pass] = e[x];
        }
        __syncthreads();
#pragma unroll
        for (int i = 0; i < tile / rows_per_pass; ++i) {
          const int c = c0 + row + i * rows_per_pass, k = k0 + chunk * vec;
          const auto* words = reinterpret_cast<const std::uint32_t*>(&staged[row + i * rows_per_pass][chunk * vec]);
          if (k < m.kg && c < m.cg)
            *reinterpret_cast<uint4*>(dst + c * m.dst_c + k) = uint4{words[0], words[1], words[2], words[3]};
        }
        __syncthreads();
      }
  }
}

// Whether every matrix of `b` moves in 16-byte vectors: two-byte elements, C/G and K/G
// multiples of 8, and every row start, tap and group offset a multiple of 8 elements from
// 16-byte aligned w and wt.
template <class T>
bool flip_transpose_vectorizes(const flipped_weights_batch& b, const void* w, const void* wt) {
  if (sizeof(T) != 2 || reinterpret_cast<std::uintptr_t>(w) % 16 != 0 || reinterpret_cast<std::uintptr_t>(wt) % 16 != 0)
    return false;
  for (int j = 0; j < b.count; ++j) {
    const flipped_weights_map& m = b.map[j];
    std::int64_t strides[] = {m.src_g, m.src_k, m.src_s[0], m.src_s[1], m.src_s[2], m.dst_g,
                              m.dst_c,  m.dst_s[0], m.dst_s[1], m.dst_s[2], b.offset[j], m.kg, m.cg};
    for (std::int64_t s : strides)
      if (s % 8 != 0) return false;
  }
  return true;
}

// Writes each map's w' (map[j].elements() elements at wt + offset[j]) from w, in one launch,
// asynchronously on `stream`.
// The grid of a batch's copy in `tile` x `tile` tiles: x over C/G, y over K/G (the widest map's), z
// over its matrices, each capped at 65535 (the kernels stride over the rest); empty (a zero
// dimension) where there is nothing to copy.
inline dim3 flip_grid(const flipped_weights_batch& b, int tile) {
  int kg = 0, cg = 0;
  for (int j = 0; j < b.count; ++j) {
    kg = std::max(kg, b.map[j].kg);
    cg = std::max(cg, b.map[j].cg);
  }
  const auto tiles = [tile](int n) { return unsigned(std::min(65535, (n + tile - 1) / tile)); };
  return dim3(tiles(cg), tiles(kg), unsigned(std::min<std::int64_t>(65535, b.matrices())));
}

template <class T>
status flip_transpose_weights(const flipped_weights_batch& b, const void* w, void* wt, cudaStream_t stream) {
  const dim3 grid = flip_grid(b, flip_transpose_tile);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0) return status::ok();
  bool vector = false;
  if constexpr (sizeof(T) == 2) {
    if ((vector = flip_transpose_vectorizes<T>(b, w, wt)))
      flip_transpose_weights_vector_kernel<T><<<flip_grid(b, flip_vector_tile), flip_vector_threads, 0, stream>>>(
          static_cast<const T*>(w), static_cast<T*>(wt), b);
  }
  if (!vector)
    flip_transpose_weights_kernel<T><<<grid, dim3(flip_transpose_tile, flip_transpose_rows), 0, stream>>>(
        static_cast<const T*>(w), static_cast<T*>(wt), b);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("flipped weights copy launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
