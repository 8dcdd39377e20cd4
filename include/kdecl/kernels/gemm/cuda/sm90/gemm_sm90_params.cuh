// Everything one launch of the sm90 kernel reads, passed by value as a
// __grid_constant__ parameter (the TMA descriptors must live in parameter or
// constant/global memory, and by-value parameters are the cheapest of these).
#pragma once

#include <cstdint>

#include <cuda.h>

#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/kernels/gemm/cuda/sm90/tile_scheduler.cuh"

namespace kdecl::kernels::cuda::sm90 {

struct gemm_sm90_params {
  CUtensorMap map_a;  // (K, M) for row-major A, (M, K) for column-major A, batch outermost
  CUtensorMap map_b;  // (K, N) for column-major B, (N, K) for row-major B
  CUtensorMap map_d[max_d_tensors];  // (N, M) D tensors, read only when d_via_tma
  CUtensorMap map_c;  // (N, M) C in 64-byte x 16-row boxes, written only when c_via_tma
  tile_scheduler sched;
  fast_tile_scheduler order;  // sched for this launch's grid, as the blocks walk it (divisions by multiply-high)
  void* c;
  const void* d[max_d_tensors];
  int m, n;
  std::int64_t ldc, stride_c;
  // D tensor i (multi_d) at d[i] + batch * stride_d[i] + row * ldd[i] + column: a GEMM's D
  // tensors share the problem's ldd; ldd 0 repeats one row for every row (a convolution's bias,
  // one value per column). Where bit i of d_at_c is set, D tensor i is read at C's own offset
  // instead: a tensor of C's strides, also where C's rows follow a map (a convolution's residual).
  std::int64_t ldd[max_d_tensors], stride_d[max_d_tensors];
  unsigned d_at_c;
  float alpha, beta;
  // multi_d + cshuffle keys whose D tiles fit the ring (sm90_config::d_in_smem), on
  // a launch without split-K: the producer TMA-loads each tile's D tensors into
  // ring slots after its k-blocks, and the epilogue reads D from shared memory.
  bool d_via_tma;
  // Every row of C starts on a 4-element boundary (pointer, ldc and batch stride):
  // the cshuffle epilogue's runs are then aligned without looking (epilogue_cshuffle.cuh).
  bool c_rows_aligned;
  // The epilogue stores C through TMA (epilogue_tma_store.cuh): a key whose C, variant
  // and epilogue allow it, on a launch without split-K, with beta = 0 and a C that TMA
  // can address.
  bool c_via_tma;
  // Split tail (sched.tail_tiles > 0, tail_split.cuh): one fp32 tile slot and one flag per
  // block, and the number a flag holds once its slot is written in this launch.
  float* tail_partials;
  unsigned long long* tail_flags;
  unsigned long long tail_epoch;
  // The block_scaled variant: sa(i, kb) at scale_a[batch * scale_stride_a + kb * scale_ld_a + i],
  // sb(nb, kb) at scale_b[batch * scale_stride_b + nb * scale_ld_b + kb] (gemm_problem.hpp).
  const float* scale_a;
  const float* scale_b;
  std::int64_t scale_ld_a, scale_ld_b, scale_stride_a, scale_stride_b;
};

}  // namespace kdecl::kernels::cuda::sm90
