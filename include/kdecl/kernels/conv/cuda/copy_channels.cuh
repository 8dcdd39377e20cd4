// One tensor copied between two layouts of it, channel by channel: at every pixel of every
// group (the outer dimensions n, g, D, H, W, each with its own stride on either side) the
// first `channels` channels from src to dst, and zeros in dst's channels from `channels` up
// to `dst_channels`; where dst has more entries of the outermost dimension (`dst_extent0`: the
// output channels of weights padded from K/G), those are zeros throughout. Channels are
// contiguous on both sides (every layout kdecl knows is channels-last). The channel-padded
// convolutions (channel_padded.cuh) copy their narrow operands in with it (C/G and K/G -> a
// multiple of 8, zeros after) and the padded results (y, dW) back out.
//
// One thread per run of up to 8 destination channels of one pixel group: the outer index is
// decoded once per run, and a whole 16-byte destination run is one vector store.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"

namespace kdecl::kernels::cuda {

struct channel_copy {
  std::int64_t extent[5]{1, 1, 1, 1, 1};  // n (images, or output channels of weights), g, D, H, W
  std::int64_t src_stride[5]{}, dst_stride[5]{};
  int channels = 0;      // copied from src
  int dst_channels = 0;  // written to dst (>= channels: the rest zero)
  std::int64_t dst_extent0 = 0;  // dst's entries of dimension 0 (>= extent[0]: the rest zero); 0: extent[0]
  __host__ __device__ std::int64_t rows() const { return dst_extent0 > extent[0] ? dst_extent0 : extent[0]; }
  __host__ __device__ std::int64_t pixel_groups() const { return rows() * extent[1] * extent[2] * extent[3] * extent[4]; }
};

inline constexpr int channel_copy_run = 8;  // destination channels per thread

template <class T>
__global__ void __launch_bounds__(256) copy_channels_kernel(const T* __restrict__ src, T* __restrict__ dst,
                                                            const __grid_constant__ channel_copy c, bool vector_runs) {
  allow_dependent_launch();  // the convolution after this pre-pass may start (dependent_launch.cuh)
  constexpr int run = channel_copy_run;
  const int runs = (c.dst_channels + run - 1) / run;
  const std::int64_t work = c.pixel_groups() * runs;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < work;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int first = int(i % runs) * run;
    std::int64_t rest = i / runs, from = 0, to = 0;
    for (int d = 4; d >= 1; --d) {  // W fastest
      const std::int64_t index = rest % c.extent[d];
      rest /= c.extent[d];
      from += index * c.src_stride[d];
      to += index * c.dst_stride[d];
    }
    from += rest * c.src_stride[0];  // rest < rows()
    to += rest * c.dst_stride[0];
    const int copied = rest < c.extent[0] ? c.channels : 0;  // dst's rows past src's: zeros
    alignas(16) T values[run];
#pragma unroll
    for (int j = 0; j < run; ++j) values[j] = first + j < copied ? src[from + first + j] : T{};
    if (vector_runs && first + run <= c.dst_channels) {
      *reinterpret_cast<uint4*>(dst + to + first) = *reinterpret_cast<const uint4*>(values);
    } else {
#pragma unroll
      for (int j = 0; j < run; ++j)
        if (first + j < c.dst_channels) dst[to + first + j] = values[j];
    }
  }
}

// Asynchronously on `stream`.
template <class T>
status copy_channels(const void* src, void* dst, const channel_copy& c, cudaStream_t stream) {
  static_assert(sizeof(T) * channel_copy_run == 16, "a run of 8 channels is one 16-byte store");
  if (c.dst_channels == 0 || c.pixel_groups() == 0) return status::ok();
  // Whole runs start 16-byte aligned where dst is and every destination stride keeps it so.
  bool vector_runs = reinterpret_cast<std::uintptr_t>(dst) % 16 == 0;
  for (int d = 0; d < 5; ++d) vector_runs = vector_runs && ((d == 0 ? c.rows() : c.extent[d]) == 1 || c.dst_stride[d] % channel_copy_run == 0);
  const std::int64_t work = c.pixel_groups() * ((c.dst_channels + channel_copy_run - 1) / channel_copy_run);
  constexpr int threads = 256;
  const int blocks = int(std::min<std::int64_t>((work + threads - 1) / threads, 65535LL * 8));
  copy_channels_kernel<T><<<blocks, threads, 0, stream>>>(static_cast<const T*>(src), static_cast<T*>(dst), c,
                                                          vector_runs);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("copy_channels launch: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
