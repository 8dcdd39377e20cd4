// The host side of a persistent sm_90 kernel's launch: one plain launch, or, when
// its blocks form thread-block clusters (split-K over a cluster, TMA multicast
// pairs), the same grid launched with a cluster dimension along x.
#pragma once

#include <cuda_runtime.h>

namespace kdecl::kernels::cuda::sm90 {

// Launches `kernel(params)` over `grid` blocks of `threads` with `smem_bytes` of dynamic
// shared memory on `stream`, in clusters of `cluster_x` blocks when cluster_x > 1.
// Returns the launch's error (cudaGetLastError() after a plain launch).
template <class Params>
cudaError_t launch_in_clusters(void (*kernel)(Params), unsigned grid, unsigned threads, int smem_bytes,
                               cudaStream_t stream, unsigned cluster_x, const Params& params) {
  if (cluster_x <= 1) {
    kernel<<<grid, threads, smem_bytes, stream>>>(params);
    return cudaGetLastError();
  }
  cudaLaunchConfig_t launch{};
  launch.gridDim = dim3(grid);
  launch.blockDim = dim3(threads);
  launch.dynamicSmemBytes = static_cast<std::size_t>(smem_bytes);
  launch.stream = stream;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = cluster_x;
  cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
  launch.attrs = &cluster;
  launch.numAttrs = 1;
  if (const cudaError_t err = cudaLaunchKernelEx(&launch, kernel, params); err != cudaSuccess) return err;
  return cudaGetLastError();
}

}  // namespace kdecl::kernels::cuda::sm90
