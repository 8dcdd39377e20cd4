// AMD CDNA targets (gfx908, gfx90a, gfx942, gfx950): CK Tile's per-arch tables
// copied entry for entry from arch_specs_generated.py (2026-04-10), plus the
// hardware facts CK keeps beside them (wave size, LDS per workgroup).
#pragma once

#include "kdecl/arch/amd_hip_kernel.hpp"
#include "kdecl/arch/amd_pipelines.hpp"

namespace kdecl::arch::cdna {

inline constexpr int lds_64k = 65536;
inline constexpr int lds_160k = 163840;  // gfx950 (ck_dispatcher_notes.md section 7: lds_capacity_kb 160)

// ---- WARP_SUPPORTED_COMBINATIONS ----------------------------------------------
inline constexpr shape3 warps_gfx908[] = {{1, 4, 1}, {2, 2, 1}, {4, 1, 1}};
inline constexpr shape3 warps_gfx90a[] = {{1, 4, 1}, {2, 2, 1}, {4, 1, 1}};
inline constexpr shape3 warps_gfx942[] = {{1, 4, 1}, {2, 2, 1}, {4, 1, 1}};
inline constexpr shape3 warps_gfx950[] = {{1, 4, 1}, {2, 2, 1}, {4, 1, 1}, {8, 2, 1}, {4, 4, 1}};

// ---- WARP_TILE_SUPPORTED_COMBINATIONS -------------------------------------------
inline constexpr shape3 wt_fp32[] = {{16, 16, 4}, {16, 16, 16}};
inline constexpr shape3 wt_16bit_gfx908[] = {{32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}};
inline constexpr shape3 wt_16bit[] = {{32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}, {4, 64, 16}, {64, 4, 16}};
inline constexpr shape3 wt_int8[] = {{32, 32, 16}, {16, 16, 32}};

inline constexpr shape3 wt_fp8_gfx90a[] = {{32, 32, 16}, {32, 32, 32}};

inline constexpr shape3 wt_fp8_fp8_gfx942[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}};
inline constexpr shape3 wt_fp8_bf8_gfx942[] = {{32, 32, 16}, {16, 16, 32}, {32, 32, 32}};
inline constexpr shape3 wt_bf8_fp8_gfx942[] = {{32, 32, 16}};
inline constexpr shape3 wt_bf8_bf8_gfx942[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}};

inline constexpr shape3 wt_fp8_fp8_gfx950[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}, {16, 16, 128}, {32, 32, 64}};
inline constexpr shape3 wt_fp8_bf8_gfx950[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 128}, {32, 32, 64}};
inline constexpr shape3 wt_bf8_fp8_gfx950[] = {{32, 32, 16}, {16, 16, 128}, {32, 32, 64}};
inline constexpr shape3 wt_bf8_bf8_gfx950[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}, {16, 16, 128}, {32, 32, 64}};
inline constexpr shape3 wt_pk_fp4_gfx950[] = {{16, 16, 128}};

inline constexpr warp_tile_list warp_tiles_gfx908[] = {
    {dtype::fp32, dtype::fp32, dtype::fp32, wt_fp32},
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_16bit_gfx908},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_16bit_gfx908},
    {dtype::int8, dtype::int8, dtype::int32, wt_int8},
};
inline constexpr warp_tile_list warp_tiles_gfx90a[] = {
    {dtype::fp32, dtype::fp32, dtype::fp32, wt_fp32},
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_16bit},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_16bit},
    {dtype::fp8, dtype::fp8, dtype::fp32, wt_fp8_gfx90a},
    {dtype::bf8, dtype::bf8, dtype::fp32, wt_fp8_gfx90a},
    {dtype::int8, dtype::int8, dtype::int32, wt_int8},
};
inline constexpr warp_tile_list warp_tiles_gfx942[] = {
    {dtype::fp32, dtype::fp32, dtype::fp32, wt_fp32},
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_16bit},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_16bit},
    {dtype::fp8, dtype::fp8, dtype::fp32, wt_fp8_fp8_gfx942},
    {dtype::fp8, dtype::bf8, dtype::fp32, wt_fp8_bf8_gfx942},
    {dtype::bf8, dtype::fp8, dtype::fp32, wt_bf8_fp8_gfx942},
    {dtype::bf8, dtype::bf8, dtype::fp32, wt_bf8_bf8_gfx942},
    {dtype::int8, dtype::int8, dtype::int32, wt_int8},
};
inline constexpr warp_tile_list warp_tiles_gfx950[] = {
    {dtype::fp32, dtype::fp32, dtype::fp32, wt_fp32},
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_16bit},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_16bit},
    {dtype::fp8, dtype::fp8, dtype::fp32, wt_fp8_fp8_gfx950},
    {dtype::fp8, dtype::bf8, dtype::fp32, wt_fp8_bf8_gfx950},
    {dtype::bf8, dtype::fp8, dtype::fp32, wt_bf8_fp8_gfx950},
    {dtype::bf8, dtype::bf8, dtype::fp32, wt_bf8_bf8_gfx950},
    {dtype::int8, dtype::int8, dtype::int32, wt_int8},
    {dtype::pk_fp4, dtype::pk_fp4, dtype::fp32, wt_pk_fp4_gfx950},
};

// ---- PRESHUFFLE_WARP_TILE_SUPPORTED_COMBINATIONS (none for gfx908) ----------------
inline constexpr shape3 pwt_16bit[] = {{32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}, {64, 4, 16}};
inline constexpr shape3 pwt_16bit_gfx950[] = {{32, 32, 8}, {16, 16, 16}, {32, 32, 16}, {16, 16, 32}, {64, 4, 16}, {32, 32, 32}, {16, 16, 64}};
inline constexpr shape3 pwt_fp8_gfx90a[] = {{32, 32, 16}, {32, 32, 32}};
inline constexpr shape3 pwt_fp8_gfx942[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}};
inline constexpr shape3 pwt_bf8_gfx942[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 64}, {16, 16, 32}};
inline constexpr shape3 pwt_int8_gfx942[] = {{16, 16, 32}, {32, 32, 16}};
inline constexpr shape3 pwt_fp8_gfx950[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 32}, {16, 16, 64}, {16, 16, 128}, {32, 32, 64}};
inline constexpr shape3 pwt_bf8_gfx950[] = {{32, 32, 16}, {32, 32, 32}, {16, 16, 64}, {16, 16, 32}, {16, 16, 128}, {32, 32, 64}};

inline constexpr warp_tile_list preshuffle_tiles_gfx90a[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, pwt_16bit},
    {dtype::bf16, dtype::bf16, dtype::fp32, pwt_16bit},
    {dtype::fp8, dtype::fp8, dtype::fp32, pwt_fp8_gfx90a},
    {dtype::bf8, dtype::bf8, dtype::fp32, pwt_fp8_gfx90a},
};
inline constexpr warp_tile_list preshuffle_tiles_gfx942[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, pwt_16bit},
    {dtype::bf16, dtype::bf16, dtype::fp32, pwt_16bit},
    {dtype::fp8, dtype::fp8, dtype::fp32, pwt_fp8_gfx942},
    {dtype::bf8, dtype::bf8, dtype::fp32, pwt_bf8_gfx942},
    {dtype::int8, dtype::int8, dtype::int32, pwt_int8_gfx942},
};
inline constexpr warp_tile_list preshuffle_tiles_gfx950[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, pwt_16bit_gfx950},
    {dtype::bf16, dtype::bf16, dtype::fp32, pwt_16bit_gfx950},
    {dtype::fp8, dtype::fp8, dtype::fp32, pwt_fp8_gfx950},
    {dtype::bf8, dtype::bf8, dtype::fp32, pwt_bf8_gfx950},
};

// ---- pipeline offers ---------------------------------------------------------------
// gfx90a and gfx942: what kdecl's HIP kernel builds (amd_hip_kernel.hpp). gfx908 and
// gfx950 have no kdecl kernel: their offers are derived from the CK seed tables so
// declarations validate (kernels_available = false).
inline constexpr auto offers_gfx908 = amd::offers(warp_tiles_gfx908, {});
inline constexpr auto offers_gfx950 = amd::offers(warp_tiles_gfx950, preshuffle_tiles_gfx950);
inline constexpr auto pre_offers_gfx950 = amd::offers(preshuffle_tiles_gfx950, preshuffle_tiles_gfx950, amd::preshuffle_layouts);

inline constexpr auto pipelines_gfx908 = amd::pipelines(offers_gfx908, {}, warps_gfx908, lds_64k);
inline constexpr auto pipelines_gfx90a = hip_kernel::pipelines(hip_kernel::offers_gfx90a, warps_gfx90a);
inline constexpr auto pipelines_gfx942 = hip_kernel::pipelines(hip_kernel::offers_gfx942, warps_gfx942);
inline constexpr auto pipelines_gfx950 = amd::pipelines(offers_gfx950, pre_offers_gfx950, warps_gfx950, lds_160k);

// ---- reference parts (dense peaks from AMD's datasheets, matrix cores; int8 in TOP/s) ----
// What the cost models assume for a target (the NVIDIA tables do the same with one part each):
// the single-die part of each generation, so that a CU count and a bandwidth describe one HIP
// device (an MI250X is two such devices).
// MI100 (CDNA1, 120 CUs): 1229 GB/s HBM2; bf16 at half the fp16 rate.
inline constexpr peak_rate peaks_mi100[] = {
    {dtype::fp16, 184.6}, {dtype::bf16, 92.3}, {dtype::fp32, 46.1}, {dtype::int8, 184.6}, {dtype::fp64, 11.5}};
// MI210 (CDNA2, one die, 104 CUs): 1638 GB/s HBM2e; no fp8 and no xf32 matrix instructions.
inline constexpr peak_rate peaks_mi210[] = {
    {dtype::fp16, 181.0}, {dtype::bf16, 181.0}, {dtype::fp32, 45.3}, {dtype::int8, 181.0}, {dtype::fp64, 45.3}};
// MI300X (CDNA3, 304 CUs): 5300 GB/s HBM3.
inline constexpr peak_rate peaks_mi300x[] = {
    {dtype::fp16, 1307.4}, {dtype::bf16, 1307.4}, {dtype::tf32, 653.7}, {dtype::fp32, 163.4},
    {dtype::fp8, 2614.9}, {dtype::int8, 2614.9}, {dtype::fp64, 163.4}};
// MI355X (CDNA4, 256 CUs): 8000 GB/s HBM3e; no xf32.
inline constexpr peak_rate peaks_mi355x[] = {
    {dtype::fp16, 2516.6}, {dtype::bf16, 2516.6}, {dtype::fp32, 157.3}, {dtype::fp8, 5033.2},
    {dtype::int8, 5033.2}, {dtype::fp64, 78.6}};

struct reference_part_figures {
  std::string_view name;
  int cus;
  double gbs;
  std::span<const peak_rate> peaks;
};

constexpr arch_spec cdna_spec(arch_id id, std::string_view family, std::string_view description,
                              int lds, bool fp8, reference_part_figures part, std::span<const shape3> warps,
                              std::span<const warp_tile_list> tiles, std::span<const warp_tile_list> pre,
                              std::span<const pipeline_caps> pipes, bool kernels) {
  return {id, backend::hip, family, "gfx9", description, 64, 1024, lds, 0, fp8, part.name, part.cus, part.gbs, part.peaks,
          warps, tiles, pre, {}, ck_tile::unsupported_traits, pipes, kernels};
}

// gfx908/gfx90a have no fp8 MFMA: CK lists fp8 warp tiles for gfx90a (seed data);
// the kdecl offers for gfx90a have none, and the fp8 rule rejects them (has_fp8 = false).
inline constexpr arch_spec gfx908 = cdna_spec(arch_id::gfx908, "cdna1", "MI100 (CDNA1)", lds_64k, false,
    {"MI100", 120, 1228.8, peaks_mi100}, warps_gfx908, warp_tiles_gfx908, {}, std::span(pipelines_gfx908).first(6), false);
inline constexpr arch_spec gfx90a = cdna_spec(arch_id::gfx90a, "cdna2", "MI200 series (CDNA2)", lds_64k, false,
    {"MI210", 104, 1638.4, peaks_mi210}, warps_gfx90a, warp_tiles_gfx90a, preshuffle_tiles_gfx90a, pipelines_gfx90a, true);
inline constexpr arch_spec gfx942 = cdna_spec(arch_id::gfx942, "cdna3", "MI300 series (CDNA3)", lds_64k, true,
    {"MI300X", 304, 5300.0, peaks_mi300x}, warps_gfx942, warp_tiles_gfx942, preshuffle_tiles_gfx942, pipelines_gfx942, true);
inline constexpr arch_spec gfx950 = cdna_spec(arch_id::gfx950, "cdna4", "MI350 series (CDNA4), 160 KiB LDS", lds_160k, true,
    {"MI355X", 256, 8000.0, peaks_mi355x}, warps_gfx950, warp_tiles_gfx950, preshuffle_tiles_gfx950, pipelines_gfx950, false);

}  // namespace kdecl::arch::cdna
