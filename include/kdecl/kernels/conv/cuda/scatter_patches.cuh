// The second step of a patchify layer's backward-data (kernels/conv/bwd_data_patches.hpp):
// the GEMM's rows [N x dY pixels][G][taps][C/G] (packed) scattered to dx, each tap's C/G
// channels to the pixel of its patch that it covers. Every dx element is written once.
//
// One thread per run of up to 8 channels of one (row, group, tap): a run of 16 bytes is one
// vector load and store where C/G, dx's strides and pointer allow it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/bwd_data_patches.hpp"

namespace kdecl::kernels::cuda {

inline constexpr int scatter_patches_run = 8;  // channels per thread

template <class T>
__global__ void __launch_bounds__(256) scatter_patches_kernel(const T* __restrict__ rows, T* __restrict__ dx,
                                                              const __grid_constant__ patch_scatter map,
                                                              std::int64_t row_count, int groups, int channels,
                                                              bool vector_runs) {
  constexpr int run = scatter_patches_run;
  const int runs = (channels + run - 1) / run;
  const int taps = map.taps_per_patch();
  const std::int64_t work = row_count * groups * taps * runs;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < work;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int first = int(i % runs) * run;
    const std::int64_t patch_value = i / runs;  // (row, group, tap), tap fastest
    const int t = int(patch_value % taps);
    const int g = int(patch_value / taps % groups);
    const int m = int(patch_value / (std::int64_t(taps) * groups));
    const T* from = rows + patch_value * channels + first;
    T* to = dx + map.offset(m, g, t) + first;
    if (vector_runs && first + run <= channels) {
      *reinterpret_cast<uint4*>(to) = *reinterpret_cast<const uint4*>(from);
    } else {
      for (int j = 0; j < run && first + j < channels; ++j) to[j] = from[j];
    }
  }
}

// Asynchronously on `stream`: `rows` (row_count x groups x taps x channels, packed) into dx.
template <class T>
status scatter_patches(const void* rows, void* dx, const patch_scatter& map, std::int64_t row_count, int groups,
                       int channels, cudaStream_t stream) {
  static_assert(sizeof(T) * scatter_patches_run == 16, "a run of 8 channels is one 16-byte access");
  const std::int64_t work =
      row_count * groups * map.taps_per_patch() * ((channels + scatter_patches_run - 1) / scatter_patches_run);
  if (work == 0) return status::ok();
  // Whole runs start 16-byte aligned on both sides where the pointers and every stride keep them so.
  bool vector_runs = channels % scatter_patches_run == 0 && reinterpret_cast<std::uintptr_t>(rows) % 16 == 0 &&
                     reinterpret_cast<std::uintptr_t>(dx) % 16 == 0;
  for (std::int64_t stride : {map.image, map.group, map.spatial[0], map.spatial[1], map.spatial[2]})
    vector_runs = vector_runs && stride % scatter_patches_run == 0;
  constexpr int threads = 256;
  const int blocks = int(std::min<std::int64_t>((work + threads - 1) / threads, 65535LL * 8));
  scatter_patches_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<const T*>(rows), static_cast<T*>(dx), map,
                                                            row_count, groups, channels, vector_runs);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("scatter_patches launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
