// The host side of a persistent sm_90 kernel's launch: one plain launch, or, when
// its blocks form thread-block clusters (split-K over a cluster, TMA multicast
// pairs), the same grid launched with a cluster dimension along x; and, for a kernel
// that waits for its prerequisite grids before touching global memory, as a programmatic
// dependent of the kernel before it (dependent_launch.cuh).
#pragma once

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Launches `kernel(params)` over `grid` blocks of `threads` with `smem_bytes` of dynamic
// shared memory on `stream`, in clusters of `cluster_x` blocks when cluster_x > 1.
// `dependent`: the kernel calls wait_for_prerequisite_grids() before any global memory access,
// so it may start under the kernel before it. Returns the launch's error.
template <class Params>
cudaError_t launch_in_clusters(void (*kernel)(Params), unsigned grid, unsigned threads, int smem_bytes,
                               cudaStream_t stream, unsigned cluster_x, const Params& params,
                               bool dependent = false) {
  if (cluster_x <= 1 && !dependent) {
    kernel<<<grid, threads, smem_bytes, stream>>>(params);
    return cudaGetLastError();
  }
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(grid);
  launch.blockDim = dim3(threads);
  launch.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  launch.stream = stream;
  cudaLaunchAttribute attrs[2]{};
  unsigned count = 0;
  if (cluster_x > 1) {
    attrs[count].id = cudaLaunchAttributeClusterDimension;
    attrs[count].val.clusterDim.x = cluster_x;
    attrs[count].val.clusterDim.y = attrs[count].val.clusterDim.z = 1;
    ++count;
  }
  if (dependent) count += dependent_launch_attribute(attrs[count]);
  launch.attrs = attrs;
  launch.numAttrs = count;
  // cudaLaunchKernelEx returns the launch's own error; asking cudaGetLastError after a launch
  // that succeeded would cost another runtime call (and report an earlier call's error as ours).
  const cudaError_t err = cudaLaunchKernelEx(&launch, kernel, params);
  if (err != cudaSuccess) cudaGetLastError();  // clear it: the caller gets it as the result
  return err;
}

}  // namespace kdecl::kernels::cuda::sm90
