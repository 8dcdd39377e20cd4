// Zeros written to the channels of every group at sets of pixels (pixel_row_map,
// kernels/conv/pixel_rows.hpp), all in one launch: the dx pixels of the
// backward-data stride phases that no filter tap reaches (bwd_data_phases.hpp).
// Region r is grid row r; one thread per 16 bytes of a pixel's group where the
// channels and strides allow it, else per element; grid-strided.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/kernels/conv/pixel_rows.hpp"

namespace kdecl::kernels::cuda {

inline constexpr int zero_regions_max = 32;

struct zero_pixel_regions {
  struct region {
    pixel_row_map pixels;
    std::int64_t rows;    // pixels (N x extents)
    std::int64_t offset;  // elements from the tensor to the region's first pixel
  } region[zero_regions_max];
  int count = 0;
  int groups = 1, channels = 0;  // channels per group
  std::int64_t group_stride = 0; // elements
};

// `Chunk` elements per thread: 16 bytes, or 1 where a group's channels cannot be cut into 16-byte pieces.
template <class T, int Chunk>
__global__ void zero_pixel_rows_kernel(T* out, const __grid_constant__ zero_pixel_regions z) {
  allow_dependent_launch();  // the convolution after this pre-pass may start (dependent_launch.cuh)
  const auto& r = z.region[blockIdx.y];
  const int chunks = z.channels / Chunk;
  const std::int64_t work = r.rows * z.groups * chunks;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < work;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int chunk = int(i % chunks);
    const std::int64_t pixel_group = i / chunks;
    const int g = int(pixel_group % z.groups);
    T* at = out + r.offset + r.pixels(int(pixel_group / z.groups)) + g * z.group_stride + chunk * Chunk;
    if constexpr (Chunk * sizeof(T) == 16) {
      *reinterpret_cast<uint4*>(at) = make_uint4(0, 0, 0, 0);
    } else {
      static_assert(Chunk == 1);
      *at = T{};
    }
  }
}

template <class T>
status zero_pixel_rows(void* out, const zero_pixel_regions& z, cudaStream_t stream) {
  if (z.count == 0 || z.groups == 0 || z.channels == 0) return status::ok();
  constexpr int vector = 16 / int(sizeof(T));
  // 16-byte stores where every pixel's every group starts 16-byte aligned.
  const auto aligned = [](std::int64_t s) { return s % vector == 0; };
  bool wide = reinterpret_cast<std::uintptr_t>(out) % 16 == 0 && aligned(z.channels) && aligned(z.group_stride);
  std::int64_t most = 0;
  for (int r = 0; r < z.count; ++r) {
    const auto& p = z.region[r].pixels;
    wide = wide && aligned(z.region[r].offset) && aligned(p.image) && std::all_of(p.spatial, p.spatial + 3, aligned);
    most = std::max(most, z.region[r].rows);
  }
  const std::int64_t work = most * z.groups * (wide ? z.channels / vector : z.channels);
  constexpr int threads = 256;
  const dim3 grid(unsigned(std::clamp<std::int64_t>((work + threads - 1) / threads, 1, 1024)), unsigned(z.count));
  if (wide) {
    zero_pixel_rows_kernel<T, vector><<<grid, threads, 0, stream>>>(static_cast<T*>(out), z);
  } else {
    zero_pixel_rows_kernel<T, 1><<<grid, threads, 0, stream>>>(static_cast<T*>(out), z);
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("zero pixel rows launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
