// conv_epilogue_pass<backend::cuda>: the fused forward epilogue as a pass of its own
// (kernels/conv/epilogue_pass.hpp): one thread per output element on a grid-stride loop, in
// fp32 with the GEMM epilogues' activations (gemm/cuda/common/elementwise.cuh). Memory-bound:
// it reads the plain result (and the residual) and writes the output once.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/epilogue_pass.hpp"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/gemm/cuda/common/elementwise.cuh"

namespace kdecl::kernels {

namespace cuda {

template <class T, elementwise Act>
__global__ void __launch_bounds__(256) conv_epilogue_pass_kernel(const conv_epilogue_rows rows, const T* result,
                                                                 const T* bias, const T* residual, T* out) {
  const std::int64_t elements = rows.elements();
  for (std::int64_t e = std::int64_t(blockIdx.x) * 256 + threadIdx.x; e < elements; e += std::int64_t(gridDim.x) * 256) {
    std::int64_t g = 0;
    const std::int64_t k = e % rows.kg;
    const std::int64_t at = rows.row_offset(e / rows.kg, g) + k;
    float v = to_float(result[at]);
    if (bias) v += to_float(bias[g * rows.kg + k]);
    if (residual) v += to_float(residual[at]);
    out[at] = from_float<T>(apply_elementwise<Act>(v));
  }
}

}  // namespace cuda

template <>
struct conv_epilogue_pass<backend::cuda> {
  template <dtype Out>
  static status run(const grouped_conv_problem& p, const void* result, const grouped_conv_args& a, void* stream) {
    using T = cuda::storage_t<Out>;
    const conv_epilogue_rows rows = epilogue_rows_of(p);
    if (rows.elements() == 0) return status::ok();
    const auto* bias = rows.fuse.bias ? static_cast<const T*>(a.bias) : nullptr;
    const auto* residual = rows.fuse.residual ? static_cast<const T*>(a.residual) : nullptr;
    const unsigned blocks = unsigned(std::min<std::int64_t>((rows.elements() + 255) / 256, 1 << 20));
    const auto s = static_cast<cudaStream_t>(stream);
    const auto* r = static_cast<const T*>(result);
    auto* out = static_cast<T*>(a.out);
    with_activation(rows.fuse.act, [&](auto act) {
      cuda::conv_epilogue_pass_kernel<T, decltype(act)::value><<<blocks, 256, 0, s>>>(rows, r, bias, residual, out);
    });
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return status::error(std::string("conv epilogue pass launch: ") + cudaGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels
