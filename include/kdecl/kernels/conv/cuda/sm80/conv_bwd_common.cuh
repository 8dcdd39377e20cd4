// Pieces the sm_80 backward convolutions share: the host-side checks every
// cp_async conv makes, and the epilogue for a C whose rows are not evenly
// strided (bwd_data's stride phases): the GEMM's accumulators, staged through
// shared memory as its cshuffle epilogue does, stored in 16-byte runs per row.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/kernels/cuda/device_info.cuh"
#include "kdecl/kernels/cuda/device_pass.cuh"
#include "kdecl/kernels/cuda/device_types.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/config.cuh"
#include "kdecl/kernels/gemm/cuda/sm80/epilogue.cuh"

namespace kdecl::kernels::cuda::sm80 {

template <grouped_conv_key K>
std::optional<std::string> signature_reason(const grouped_conv_problem& p) {
  const auto& s = K.sig;
  if (!p.has_signature(s))
    return std::string("problem signature differs from the kernel's");
  if (p != p.normalized()) return std::string("problem is not normalized");
  return std::nullopt;
}

inline std::optional<std::string> sizes_reason(const grouped_conv_problem& p) {
  constexpr std::int64_t int_max = std::numeric_limits<int>::max();
  const auto out = p.output_dims();
  for (int d = 0; d < 3; ++d)
    if (p.input_dims[d] > int_max || p.pad_left_dims[d] > int_max || out[std::size_t(d)] > int_max ||
        p.stride_dims[d] > int_max / 4 || p.dilation_dims[d] * p.filter_dims[d] > int_max / 4)
      return std::string("cp_async conv: spatial sizes, strides and dilated filters must be < 2^29");
  return std::nullopt;
}

// What the running environment must provide (checked by run(), so selection works offline).
template <class Cfg>
std::optional<std::string> device_reason() {
  return device_shortfall("cp_async conv", {least_device_major(Cfg::algo.arch), 0, /*exact=*/false, Cfg::smem_bytes});
}

template <class Kernel>
std::optional<std::string> allow_smem(Kernel kernel, int bytes) {
  if (bytes <= 48 * 1024) return std::nullopt;
  const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err != cudaSuccess) return std::string("cudaFuncSetAttribute: ") + cudaGetErrorString(err);
  return std::nullopt;
}

// Registers -> global, row i of the block's C at row_at(m0 + i) (a pointer to its first column).
template <class Cfg, class Warp, class RowAt>
__device__ void mapped_rows_direct(const Warp& w, RowAt&& row_at, int m_ext, int n_ext, int m0, int n0) {
  using tc = typename Cfg::tc;
  w.for_each_pair([&](int r, int c, float v0, float v1) {
    const int i = m0 + r, j = n0 + c;
    if (i >= m_ext || j >= n_ext) return;
    tc* dst = row_at(i) + j;
    if (j + 1 < n_ext && reinterpret_cast<std::uintptr_t>(dst) % (2 * sizeof(tc)) == 0) {
      *reinterpret_cast<vec_of<tc, 2>*>(dst) = vec_of<tc, 2>{{from_float<tc>(v0), from_float<tc>(v1)}};
    } else {
      dst[0] = from_float<tc>(v0);
      if (j + 1 < n_ext) dst[1] = from_float<tc>(v1);
    }
  });
}

// Registers -> shared (fp32 block tile) -> global in 16-byte runs along each row.
// The caller has drained the cp.async ring and synchronised. rows_aligned: every
// row_at(i) is 16-byte aligned (else runs are stored element by element).
template <class Cfg, class Warp, class RowAt>
__device__ void mapped_rows_cshuffle(const Warp& w, RowAt&& row_at, int m_ext, int n_ext, int m0, int n0,
                                     unsigned char* smem, int tid, bool rows_aligned) {
  using tc = typename Cfg::tc;
  constexpr int pitch = Cfg::tile_n + cshuffle_pad(layout::row);
  float* st = reinterpret_cast<float*>(smem);
  w.for_each_pair([&](int r, int c, float v0, float v1) {
    *reinterpret_cast<vec_of<float, 2>*>(st + r * pitch + c) = vec_of<float, 2>{{v0, v1}};
  });
  __syncthreads();
  constexpr int run = 16 / int(sizeof(tc));
  constexpr int runs_per_row = Cfg::tile_n / run;
  static_assert(Cfg::tile_n % run == 0, "a staged row is a whole number of 16-byte runs");
  for (int v = tid; v < Cfg::tile_m * runs_per_row; v += Cfg::threads) {
    const int r = v / runs_per_row, c = (v % runs_per_row) * run;
    const int i = m0 + r, j = n0 + c;
    if (i >= m_ext || j >= n_ext) continue;
    const float* src = st + r * pitch + c;
    tc* dst = row_at(i) + j;
    if (rows_aligned && j + run <= n_ext) {
      vec_of<tc, run> out;
#pragma unroll
      for (int e = 0; e < run; ++e) out.v[e] = from_float<tc>(src[e]);
      *reinterpret_cast<vec_of<tc, run>*>(dst) = out;
    } else {
      for (int e = 0; e < run && j + e < n_ext; ++e) dst[e] = from_float<tc>(src[e]);
    }
  }
}

}  // namespace kdecl::kernels::cuda::sm80
