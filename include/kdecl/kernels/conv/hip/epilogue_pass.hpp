// conv_epilogue_pass<backend::hip>: the fused forward epilogue as a pass of its own
// (kernels/conv/epilogue_pass.hpp), one thread per output element on a grid-stride loop, in
// fp32 with the HIP GEMM epilogue's activations. Compiled for gfx90a and gfx940, never run.
#pragma once

#include <hip/hip_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/core/status.hpp"
#include "kdecl/kernels/conv/epilogue_pass.hpp"
#include "kdecl/kernels/gemm/hip/elementwise_hip.hpp"
#include "kdecl/kernels/hip/hip_storage.hpp"

namespace kdecl::kernels {

namespace hip {

template <dtype D, elementwise Act>
__global__ void __launch_bounds__(256) conv_epilogue_pass_kernel(conv_epilogue_rows rows, const void* result,
                                                                 const void* bias, const void* residual, void* out) {
  using T = storage_t<D>;
  const std::int64_t elements = rows.elements();
  for (std::int64_t e = std::int64_t(blockIdx.x) * 256 + threadIdx.x; e < elements; e += std::int64_t(gridDim.x) * 256) {
    std::int64_t g = 0;
    const std::int64_t k = e % rows.kg;
    const std::int64_t at = rows.row_offset(e / rows.kg, g) + k;
    float v = to_epilogue<D, float>(static_cast<const T*>(result)[at]);
    if (bias) v += to_epilogue<D, float>(static_cast<const T*>(bias)[g * rows.kg + k]);
    if (residual) v += to_epilogue<D, float>(static_cast<const T*>(residual)[at]);
    static_cast<T*>(out)[at] = from_epilogue<D, float>(apply_elementwise<Act, float>(v));
  }
}

}  // namespace hip

template <>
struct conv_epilogue_pass<backend::hip> {
  template <dtype Out>
  static status run(const grouped_conv_problem& p, const void* result, const grouped_conv_args& a, void* stream) {
    const conv_epilogue_rows rows = epilogue_rows_of(p);
    if (rows.elements() == 0) return status::ok();
    const void* bias = rows.fuse.bias ? a.bias : nullptr;
    const void* residual = rows.fuse.residual ? a.residual : nullptr;
    const dim3 grid(unsigned(std::min<std::int64_t>((rows.elements() + 255) / 256, 1 << 20)));
    const auto s = static_cast<hipStream_t>(stream);
    with_activation(rows.fuse.act, [&](auto act) {
      hipLaunchKernelGGL((hip::conv_epilogue_pass_kernel<Out, decltype(act)::value>), grid, dim3(256), 0, s, rows,
                         result, bias, residual, a.out);
    });
    const hipError_t err = hipGetLastError();
    if (err != hipSuccess) return status::error(std::string("hip conv epilogue pass launch: ") + hipGetErrorString(err));
    return status::ok();
  }
};

}  // namespace kdecl::kernels
