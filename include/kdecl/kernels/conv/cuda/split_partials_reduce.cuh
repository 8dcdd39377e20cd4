// The second step of a backward-weight convolution split over its depth (N x
// output pixels): each depth range wrote its fp32 partial dW into the workspace,
// [split][group][K/G][taps x C/G], and this kernel adds them in split order
// (deterministic: the same sum on every run) and converts to dW's dtype and
// strides. Used by the sm_80 and sm_90 backward-weight kernels.
#pragma once

#include <algorithm>
#include <cstdint>

#include <cuda_runtime.h>

#include "kdecl/kernels/cuda/device_types.cuh"

namespace kdecl::kernels::cuda {

// dW[g, k, j] = sum over the splits, in order, of partial[split][g][k][j]; converted to T.
template <class T>
__global__ void conv_split_reduce_kernel(const float* __restrict__ partial, T* __restrict__ dw, int splits,
                                         std::int64_t split_stride, int m, int n, int groups, std::int64_t dw_g,
                                         std::int64_t dw_m) {
  const std::int64_t total = std::int64_t(groups) * m * n;
  for (std::int64_t e = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < total;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += partial[s * split_stride + e];
    const std::int64_t mn = std::int64_t(m) * n;
    const std::int64_t g = e / mn, r = e % mn;
    dw[g * dw_g + (r / n) * dw_m + r % n] = from_float<T>(sum);
  }
}

// Launches the reduction over `groups` x m x n elements on `sms` multiprocessors.
template <class T>
cudaError_t reduce_split_partials(const float* partial, T* dw, int splits, int m, int n, int groups,
                                  std::int64_t dw_g, std::int64_t dw_m, int sms, cudaStream_t stream) {
  const std::int64_t total = std::int64_t(groups) * m * n;
  const std::int64_t most = std::int64_t(sms) * 32;  // 256-thread blocks, a grid-stride loop past that
  const unsigned blocks = unsigned(std::max<std::int64_t>(1, std::min<std::int64_t>((total + 255) / 256, most)));
  conv_split_reduce_kernel<T><<<blocks, 256, 0, stream>>>(partial, dw, splits, total, m, n, groups, dw_g, dw_m);
  return cudaGetLastError();
}

}  // namespace kdecl::kernels::cuda
