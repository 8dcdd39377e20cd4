// The MFMA (matrix fused multiply-add) instructions the HIP kernels (GEMM and
// attention) are built from.
//
// One table, native_mfma() in mfma_table.hpp, says which instruction serves a
// (dtype, arch, warp tile edge) triple; both the compile-time support check and
// the device code read it, so they cannot disagree. Only single-block
// instructions with M == N are used (16x16 or 32x32 outputs); larger warp-tile
// K is built from k-repeats of the native K.
//
// Register layout of a single-block MxNxK MFMA on a 64-lane wave, with
// kpl = K*M/64 elements of A (and of B) per lane:
//   A(i, k): lane = i + M * (k / kpl), element k % kpl   (i < M)
//   B(k, j): lane = j + N * (k / kpl), element k % kpl   (j < N)
//   D(i, j): lane = j + N * ((i / 4) % (64 / N)), accumulator (i % 4) + 4 * (i / (4 * 64 / N))
// i.e. accumulator v of a lane holds row out_row(v, lane), column lane % N.
// The reduction is over k, so any permutation of k that A and B share gives the
// same product; the GEMM uses that to read k-repeats with one wide LDS access.
#pragma once

#include <hip/hip_runtime.h>

#include <cstdint>
#include <type_traits>

#include "kdecl/core/enums.hpp"
#include "kdecl/kernels/hip/mfma_table.hpp"

namespace kdecl::kernels::hip {

// Row of the output tile held by accumulator v of `lane` (column is lane % MN).
template <int MN>
__host__ __device__ inline int mfma_out_row(int v, int lane) {
  return mfma_out_row(v, lane, MN);
}

// One MFMA instruction, typed. operand_t is what one lane supplies for A (and B).
template <dtype A, arch_id Arch, int MN>
struct mfma_op {
  static constexpr mfma_shape shape = native_mfma(A, Arch, MN);
  static_assert(shape.exists(), "hip: no MFMA instruction for this dtype, arch and warp tile");

  static constexpr int acc_count = MN * MN / 64;
  using acc_elem_t = std::conditional_t<A == dtype::int8, std::int32_t, float>;
  using acc_t = acc_elem_t __attribute__((ext_vector_type(acc_count)));

  using half4_t = _Float16 __attribute__((ext_vector_type(4)));
  using short4_t = short __attribute__((ext_vector_type(4)));
  using operand_t =
      std::conditional_t<A == dtype::fp16, half4_t,
      std::conditional_t<A == dtype::bf16, short4_t,
      std::conditional_t<A == dtype::fp32, float,
      std::conditional_t<A == dtype::int8 && Arch == arch_id::gfx90a, int, long>>>>;
  static constexpr int operand_bytes = static_cast<int>(sizeof(operand_t));

  __device__ static acc_t run(operand_t a, operand_t b, acc_t c) {
    if constexpr (A == dtype::fp16) {
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_f32_32x32x8f16(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_f32_16x16x16f16(a, b, c, 0, 0, 0);
    } else if constexpr (A == dtype::bf16) {
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_f32_16x16x16bf16_1k(a, b, c, 0, 0, 0);
    } else if constexpr (A == dtype::fp32) {
      return __builtin_amdgcn_mfma_f32_16x16x4f32(a, b, c, 0, 0, 0);
    } else if constexpr (A == dtype::int8 && Arch == arch_id::gfx90a) {
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_i32_32x32x8i8(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_i32_16x16x16i8(a, b, c, 0, 0, 0);
    } else if constexpr (A == dtype::int8) {
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_i32_32x32x16_i8(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_i32_16x16x32_i8(a, b, c, 0, 0, 0);
    } else if constexpr (A == dtype::fp8) {
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_f32_32x32x16_fp8_fp8(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_f32_16x16x32_fp8_fp8(a, b, c, 0, 0, 0);
    } else {
      static_assert(A == dtype::bf8);
      if constexpr (MN == 32) return __builtin_amdgcn_mfma_f32_32x32x16_bf8_bf8(a, b, c, 0, 0, 0);
      else return __builtin_amdgcn_mfma_f32_16x16x32_bf8_bf8(a, b, c, 0, 0, 0);
    }
  }
};

}  // namespace kdecl::kernels::hip
