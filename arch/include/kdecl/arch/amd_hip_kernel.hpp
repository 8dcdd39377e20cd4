// What kdecl's own HIP GEMM kernel (include/kdecl/kernels/gemm/hip/) builds on
// gfx90a and gfx942: the pipeline offers the DSL validates there. Its authority is
// hip_gemm_unsupported(key) in gemm_hip_geometry.hpp (tests/unit/
// table_hip_agreement_test.cpp checks every key these tables expand to against it).
// The CK Tile seed tables of those targets stay in amd_cdna.hpp as data (exported
// to JSON); only the offers differ: pipelines mem / compv3 / compv4, intrawave
// only, no 4x64 / 64x4 warp tiles, C row-major, fp8/bf8 on gfx942 only (not mixed),
// int8 warp tiles per target, LDS rows padded by 16 bytes; grouped convolutions (the conv offer)
// on the same pipelines, whose authority is conv_hip_unsupported_reason (kernels/conv/hip/).
#pragma once

#include <array>

#include "kdecl/arch/amd_pipelines.hpp"

namespace kdecl::arch::hip_kernel {

inline constexpr int lds_bytes = 65536;       // per workgroup on gfx90a and gfx942
inline constexpr int max_accumulators = 256;  // per lane; beyond this the wave spills

// C dtypes the epilogue writes: any float type for float accumulators; int32 or int8 for int8.
inline constexpr std::uint32_t c_float = bits(dtype::fp16, dtype::bf16, dtype::fp32);
inline constexpr std::uint32_t c_int = bits(dtype::int32, dtype::int8);

// Warp tiles: square 16x16 or 32x32 MFMA outputs, k such that one lane's
// fragment is 4, 8 or 16 bytes (one LDS read).
inline constexpr shape3 wt_16bit[] = {{32, 32, 8}, {32, 32, 16}, {16, 16, 16}, {16, 16, 32}};
inline constexpr shape3 wt_fp32[] = {{16, 16, 4}, {16, 16, 8}, {16, 16, 16}};
inline constexpr shape3 wt_int8_gfx90a[] = {{32, 32, 8}, {32, 32, 16}, {32, 32, 32},
                                            {16, 16, 16}, {16, 16, 32}, {16, 16, 64}};
inline constexpr shape3 wt_8bit_gfx942[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}};

inline constexpr std::uint32_t c_row_layouts = layouts(rcr, rrr, crr, ccr);

constexpr dtype_offer offer(dtype a, std::span<const shape3> tiles) {
  const bool integer = a == dtype::int8;
  return {a, a, default_accumulator(a), a, integer ? c_int : c_float, c_row_layouts, tiles, {},
          unshuffled_variants};
}

inline constexpr dtype_offer offers_gfx90a[] = {
    offer(dtype::fp16, wt_16bit), offer(dtype::bf16, wt_16bit), offer(dtype::fp32, wt_fp32),
    offer(dtype::int8, wt_int8_gfx90a)};
inline constexpr dtype_offer offers_gfx942[] = {
    offer(dtype::fp16, wt_16bit), offer(dtype::bf16, wt_16bit), offer(dtype::fp32, wt_fp32),
    offer(dtype::int8, wt_8bit_gfx942), offer(dtype::fp8, wt_8bit_gfx942), offer(dtype::bf8, wt_8bit_gfx942)};

constexpr pipeline_caps pipeline_of(pipeline p, std::span<const dtype_offer> dt, std::span<const shape3> warps) {
  pipeline_caps c{p, dt, warps, 0, ck_tile::gemm_tile_min, ck_tile::gemm_tile_align, false, 0,
                  amd::tile_mn_sweep, amd::tile_mn_sweep, amd::tile_k_sweep, amd::stages_of(p),
                  bits(epilogue::direct, epilogue::cshuffle), bits(scheduler::intrawave),
                  amd::vector_widths, amd::vector_default, smem_formula::hip_padded_ring_or_shuffle, lds_bytes,
                  amd::no_cluster, false};
  c.max_accumulators = max_accumulators;
  c.tile_chunk_bytes = 16;  // LDS rows (tile_k * size) stay 16-byte aligned
  // Convolutions as implicit GEMMs on the same pieces (kernels/conv/hip/conv_hip_rules.hpp
  // conv_hip_unsupported_reason): every direction (backward with compv3 or mem, CK's rule), every
  // layout, fp16/bf16/fp32 data, one group per block, 4- to 16-byte gathers, the forward kernels
  // fusing bias, residual and activation into their epilogue.
  c.conv = {bits(conv_direction::fwd, conv_direction::bwd_data, conv_direction::bwd_weight),
            bits(conv_layout::nwgc, conv_layout::nhwgc, conv_layout::ndhwgc, conv_layout::gnwc, conv_layout::gnhwc,
                 conv_layout::gndhwc),
            bits(dtype::fp16, dtype::bf16, dtype::fp32), bits(conv_specialization::none), 1,
            bits(scheduler::intrawave), /*min_vector_bytes=*/4};
  c.conv.fused_specializations = bits(conv_specialization::none);
  return c;
}

constexpr std::array<pipeline_caps, 3> pipelines(std::span<const dtype_offer> dt, std::span<const shape3> warps) {
  return {pipeline_of(pipeline::mem, dt, warps), pipeline_of(pipeline::compv3, dt, warps),
          pipeline_of(pipeline::compv4, dt, warps)};
}

}  // namespace kdecl::arch::hip_kernel
