// How many blocks of one kernel can be resident at once when launched in clusters
// of 2..max_cluster_splits blocks: what plan_launch (gemm_sm90.cuh) needs to choose
// a split-K cluster size whose clusters all fit in one wave. Asked of the driver
// (cudaOccupancyMaxActiveClusters) once per kernel and device; the GEMM and the
// forward convolution (kernels/conv/cuda/sm90/) each keep one table per kernel.
#pragma once

#include <algorithm>
#include <array>
#include <mutex>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/gemm/cuda/sm90/split_k.cuh"

namespace kdecl::kernels::cuda::sm90 {

// Index s = 2..max_cluster_splits: blocks resident at once in clusters of s; 0 where
// clusters of s cannot be launched at all.
using cluster_capacity = std::array<int, max_cluster_splits + 1>;

class cluster_capacity_table {
 public:
  // `kernel` must already allow `smem_bytes` of dynamic shared memory (cudaFuncSetAttribute).
  const cluster_capacity& of(const void* kernel, int threads, int smem_bytes, const device_info& dev) {
    std::lock_guard<std::mutex> lock(guard_);
    const int d = std::clamp(dev.ordinal, 0, max_devices - 1);
    if (!known_[d]) {
      for (int splits = 2; splits <= max_cluster_splits; ++splits) {
        cudaLaunchConfig_t launch{};
        launch.gridDim = dim3(splits * std::max(dev.sm_count, 1));
        launch.blockDim = dim3(threads);
        launch.dynamicSmemBytes = smem_bytes;
        cudaLaunchAttribute cluster{};
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = static_cast<unsigned>(splits);
        cluster.val.clusterDim.y = cluster.val.clusterDim.z = 1;
        launch.attrs = &cluster;
        launch.numAttrs = 1;
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &launch) != cudaSuccess) {
          cudaGetLastError();  // clear it: the launch that follows must not report it
          clusters = 0;
        }
        cache_[d][splits] = clusters * splits;
      }
      known_[d] = true;
    }
    return cache_[d];
  }

 private:
  static constexpr int max_devices = 64;
  std::mutex guard_;
  std::array<cluster_capacity, max_devices> cache_{};
  std::array<bool, max_devices> known_{};
};

}  // namespace kdecl::kernels::cuda::sm90
