// Evicting the L2 before a timed launch, for the decode benchmarks (kdecl_bench_decode,
// kdecl_decode_timeline, `kdecl bench fmha --paged`): a write of a buffer larger than
// the L2 (the L2 is left full of dirty lines, which the timed launch writes back to DRAM as it brings
// its own bytes in) or a read of it (clean lines: nothing to write back).
#pragma once

#include <cstddef>

#include <cuda_runtime.h>

namespace kdecl::bench {

// Reads n 16-byte words and keeps nothing (a store no value takes keeps the loads).
__global__ void read_sweep(const uint4* in, std::size_t n, unsigned* never) {
  unsigned x = 0;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    const uint4 v = in[i];
    x ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (x == 0x9E3779B9u && never != nullptr) *never = x;
}

// Queues the eviction on the default stream: a read of `bytes` of `buffer`, or a write of `value`.
inline cudaError_t evict_l2(void* buffer, std::size_t bytes, bool read, int value = 1) {
  if (!read) return cudaMemsetAsync(buffer, value, bytes);
  read_sweep<<<1056, 256>>>(static_cast<const uint4*>(buffer), bytes / 16, nullptr);
  return cudaGetLastError();
}

}  // namespace kdecl::bench
