// The flipped, transposed weights a backward-data runs its forward equivalent
// with (kernels/conv/bwd_data_as_forward.hpp; per stride phase, that phase's
// taps: bwd_data_phases.hpp, all phases in one launch): for each group and filter
// tap, a (K/G) x (C/G) matrix written as (C/G) x (K/G) through a 32 x 32
// shared-memory tile, so that both the reads (along c) and the writes (along k)
// are coalesced. Every loop strides over the grid: any K/G, C/G, G and taps.
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
};

template <class T>
__global__ void __launch_bounds__(flip_transpose_tile * flip_transpose_rows)
    flip_transpose_weights_kernel(const T* __restrict__ w, T* __restrict__ wt,
                                  const __grid_constant__ flipped_weights_batch b) {
  allow_dependent_launch();  // the convolution after this pre-pass may start (dependent_launch.cuh)
  constexpr int tile = flip_transpose_tile;
  __shared__ T staged[tile][tile + 1];  // +1: the column reads of the write pass hit distinct banks
  std::int64_t matrices = 0;
  for (int j = 0; j < b.count; ++j) matrices += std::int64_t(b.map[j].groups) * b.map[j].taps;
  for (std::int64_t z = blockIdx.z; z < matrices; z += gridDim.z) {
    int j = 0;
    std::int64_t gt = z;
    for (; gt >= std::int64_t(b.map[j].groups) * b.map[j].taps; ++j)  // the copy `z` falls in
      gt -= std::int64_t(b.map[j].groups) * b.map[j].taps;
    const flipped_weights_map& m = b.map[j];
    const int k_tiles = (m.kg + tile - 1) / tile, c_tiles = (m.cg + tile - 1) / tile;
    const int g = int(gt / m.taps), tap = int(gt % m.taps);
    // The matrix's first element on both sides, once: the per-element offsets are then a
    // multiply-add (the tap decomposition's divisions would otherwise dominate the copy).
    const T* src = w + m.source(g, 0, 0, tap);
    T* dst = wt + b.offset[j] + m.destination(g, 0, 0, tap);
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

// Writes each map's w' (map[j].elements() elements at wt + offset[j]) from w, in one launch,
// asynchronously on `stream`.
template <class T>
status flip_transpose_weights(const flipped_weights_batch& b, const void* w, void* wt, cudaStream_t stream) {
  constexpr int tile = flip_transpose_tile;
  int kg = 0, cg = 0;
  std::int64_t matrices = 0;
  for (int j = 0; j < b.count; ++j) {
    kg = std::max(kg, b.map[j].kg);
    cg = std::max(cg, b.map[j].cg);
    matrices += std::int64_t(b.map[j].groups) * b.map[j].taps;
  }
  if (matrices == 0 || kg == 0 || cg == 0) return status::ok();
  const auto tiles = [](int n) { return unsigned(std::min(65535, (n + tile - 1) / tile)); };
  const dim3 grid(tiles(cg), tiles(kg), unsigned(std::min<std::int64_t>(65535, matrices)));
  flip_transpose_weights_kernel<T>
      <<<grid, dim3(tile, flip_transpose_rows), 0, stream>>>(static_cast<const T*>(w), static_cast<T*>(wt), b);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("flipped weights copy launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
