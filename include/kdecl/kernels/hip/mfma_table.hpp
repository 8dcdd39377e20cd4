// The MFMA instruction table of the HIP kernels (GEMM, attention): which native
// instruction serves a (dtype, arch, warp-tile edge) triple, and where an output
// element lands. Plain constexpr C++ without HIP headers, so host-only code (arch
// tables, registries built with g++, host tests) can use it, and through
// gemm_hip_geometry.hpp / fmha_hip_geometry.hpp the whole support checks.
#pragma once

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::hip {

struct mfma_shape {
  int mn = 0;          // M == N of the output tile; 0: no instruction
  int k = 0;           // K of one instruction
  int k_per_lane = 0;  // elements of A (and of B) each lane supplies
  constexpr bool exists() const { return mn > 0; }
};

// The native instruction for warp tiles mn x mn with A/B dtype `a` on `arch`.
//   fp16: v_mfma_f32_32x32x8f16, v_mfma_f32_16x16x16f16              (gfx90a, gfx942)
//   bf16: v_mfma_f32_32x32x8bf16_1k, v_mfma_f32_16x16x16bf16_1k      (gfx90a, gfx942)
//   fp32: v_mfma_f32_16x16x4f32                                       (gfx90a, gfx942)
//   int8: v_mfma_i32_32x32x8i8, v_mfma_i32_16x16x16i8                 (gfx90a; removed in gfx940+)
//         v_mfma_i32_32x32x16_i8, v_mfma_i32_16x16x32_i8              (gfx942)
//   fp8:  v_mfma_f32_32x32x16_fp8_fp8, v_mfma_f32_16x16x32_fp8_fp8    (gfx942)
//   bf8:  v_mfma_f32_32x32x16_bf8_bf8, v_mfma_f32_16x16x32_bf8_bf8    (gfx942)
constexpr mfma_shape native_mfma(dtype a, arch_id arch, int mn) {
  const bool cdna2 = arch == arch_id::gfx90a;
  const bool cdna3 = arch == arch_id::gfx942;
  if (!cdna2 && !cdna3) return {};
  switch (a) {
    case dtype::fp16:
    case dtype::bf16:
      if (mn == 32) return {32, 8, 4};
      if (mn == 16) return {16, 16, 4};
      return {};
    case dtype::fp32:
      if (mn == 16) return {16, 4, 1};
      return {};
    case dtype::int8:
      if (mn == 32) return cdna2 ? mfma_shape{32, 8, 4} : mfma_shape{32, 16, 8};
      if (mn == 16) return cdna2 ? mfma_shape{16, 16, 4} : mfma_shape{16, 32, 8};
      return {};
    case dtype::fp8:
    case dtype::bf8:
      if (!cdna3) return {};
      if (mn == 32) return {32, 16, 8};
      if (mn == 16) return {16, 32, 8};
      return {};
    default:
      return {};
  }
}

// Row of the MN x MN output tile held by accumulator v of `lane` of a single-block
// MFMA (the column is lane % MN): 4 consecutive rows per group of 4 accumulators,
// the 64 / MN lane groups interleaved by 4 rows. constexpr, so it is callable from
// device code (clang treats constexpr functions as host and device) and host tests.
constexpr int mfma_out_row(int v, int lane, int mn) { return (v / 4) * (4 * 64 / mn) + 4 * (lane / mn) + (v % 4); }

}  // namespace kdecl::kernels::hip
