// The merged groups' weights (kernels/conv/merged_groups.hpp) written out as the packed
// weight tensor of the merged view, so that a kernel reading plain weights (the sm_90
// forward convolution's TMA producer: one box per k-block) runs the view as it is:
//
//   dst[b][n][tap][c] = w[b*m + n/(K/G)][n % (K/G)][tap][c % (C/G)]   where c/(C/G) == n/(K/G)
//                       0                                              elsewhere
//
// for block b of G/m, n < m x K/G, c < m x C/G. One thread per destination element (2-byte
// data copied as bits), a grid-stride loop: any size. The copy is m x the weights' size
// (ResNeXt-50 at m x C/G = 64: 0.15 to 1.2 MB), read from L2 by every tile after.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime.h>

#include "kdecl/core/status.hpp"
#include "kdecl/kernels/cuda/sm90/dependent_launch.cuh"
#include "kdecl/conv/grouped_conv_problem.hpp"

namespace kdecl::kernels::cuda {

struct block_diagonal_map {
  std::int64_t blocks;         // G / m
  int merge, cg, kg, taps;     // m, one group's C/G and K/G, filter taps
  std::int64_t wei_g, wei_k;   // the source weights' group and output-channel strides (elements)
  __host__ __device__ std::int64_t elements() const { return blocks * merge * kg * taps * std::int64_t(merge) * cg; }
};

inline block_diagonal_map block_diagonal_map_of(const grouped_conv_problem& p, int merge) {
  return {p.g / merge, merge, int(p.c_per_group()), int(p.k_per_group()), int(p.filter_taps()), p.wei_strides.g,
          p.wei_strides.n};
}

// (A template, so that every translation unit including this header may instantiate it.)
template <class Bits>
__global__ void block_diagonal_weights_kernel(const Bits* __restrict__ w, Bits* __restrict__ dst, block_diagonal_map m) {
  allow_dependent_launch();  // the convolution after this pre-pass may start (dependent_launch.cuh)
  const int width = m.merge * m.cg, rows = m.merge * m.kg;
  const std::int64_t total = m.elements();
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < total;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int c = int(i % width);
    std::int64_t r = i / width;
    const int tap = int(r % m.taps);
    r /= m.taps;
    const int n = int(r % rows);
    const std::int64_t b = r / rows;
    const int group = n / m.kg;
    Bits v = 0;  // +0.0 in fp16 and bf16
    if (c / m.cg == group)
      v = w[(b * m.merge + group) * m.wei_g + std::int64_t(n - group * m.kg) * m.wei_k + std::int64_t(tap) * m.cg +
            (c - group * m.cg)];
    dst[i] = v;
  }
}

// Writes the view's weights of 16-bit `w` to `dst` (m.elements() elements) on `stream`.
inline status block_diagonal_weights(const block_diagonal_map& m, const void* w, void* dst, cudaStream_t stream) {
  constexpr int threads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((m.elements() + threads - 1) / threads, 4096);
  if (blocks == 0) return status::ok();
  block_diagonal_weights_kernel<std::uint16_t><<<unsigned(blocks), threads, 0, stream>>>(
      static_cast<const std::uint16_t*>(w), static_cast<std::uint16_t*>(dst), m);
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess)
    return status::error(std::string("block-diagonal weights: ") + cudaGetErrorString(err));
  return status::ok();
}

}  // namespace kdecl::kernels::cuda
