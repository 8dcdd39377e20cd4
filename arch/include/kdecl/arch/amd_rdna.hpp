// AMD RDNA targets (gfx1100, gfx1200, gfx1201): CK Tile's per-arch tables
// copied from arch_specs_generated.py (2026-04-10). Wave size 32 (WMMA).
#pragma once

#include "kdecl/arch/amd_pipelines.hpp"

namespace kdecl::arch::rdna {

inline constexpr int lds_64k = 65536;

// WARP_SUPPORTED_COMBINATIONS (identical for the three targets)
inline constexpr shape3 warps_rdna[] = {{2, 4, 1}, {1, 8, 1}, {8, 1, 1}, {4, 2, 1}};

// WARP_TILE_SUPPORTED_COMBINATIONS: every WMMA dtype is 16x16x16.
inline constexpr shape3 wt_wmma[] = {{16, 16, 16}};

inline constexpr warp_tile_list warp_tiles_gfx1100[] = {
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_wmma},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_wmma},
    {dtype::int8, dtype::int8, dtype::int32, wt_wmma},
};
inline constexpr warp_tile_list warp_tiles_gfx12[] = {  // gfx1200 and gfx1201
    {dtype::fp16, dtype::fp16, dtype::fp32, wt_wmma},
    {dtype::bf16, dtype::bf16, dtype::fp32, wt_wmma},
    {dtype::fp8, dtype::fp8, dtype::fp32, wt_wmma},
    {dtype::bf8, dtype::bf8, dtype::fp32, wt_wmma},
    {dtype::fp8, dtype::bf8, dtype::fp32, wt_wmma},
    {dtype::bf8, dtype::fp8, dtype::fp32, wt_wmma},
    {dtype::int8, dtype::int8, dtype::int32, wt_wmma},
};

// No preshuffle tables for RDNA: preshufflev2 is not offered.
inline constexpr auto offers_gfx1100 = amd::offers(warp_tiles_gfx1100, {});
inline constexpr auto offers_gfx12 = amd::offers(warp_tiles_gfx12, {});
inline constexpr auto pipelines_gfx1100 = amd::pipelines(offers_gfx1100, {}, warps_rdna, lds_64k);
inline constexpr auto pipelines_gfx12 = amd::pipelines(offers_gfx12, {}, warps_rdna, lds_64k);

constexpr arch_spec rdna_spec(arch_id id, std::string_view family, std::string_view target_family,
                              std::string_view description, bool fp8,
                              std::span<const warp_tile_list> tiles, std::span<const pipeline_caps> pipes) {
  return {id, backend::hip, family, target_family, description, 32, 1024, lds_64k, 0, fp8, {}, 0, 0.0, {},
          warps_rdna, tiles, {}, {}, ck_tile::unsupported_traits, pipes, /*kernels_available=*/false};
}

inline constexpr arch_spec gfx1100 = rdna_spec(arch_id::gfx1100, "rdna3", "gfx11", "Radeon RX 7900 series (RDNA3)",
    false, warp_tiles_gfx1100, std::span(pipelines_gfx1100).first(6));
inline constexpr arch_spec gfx1200 = rdna_spec(arch_id::gfx1200, "rdna4", "gfx12", "Radeon RX 9060 series (RDNA4)",
    true, warp_tiles_gfx12, std::span(pipelines_gfx12).first(6));
inline constexpr arch_spec gfx1201 = rdna_spec(arch_id::gfx1201, "rdna4", "gfx12", "Radeon RX 9070 series (RDNA4)",
    true, warp_tiles_gfx12, std::span(pipelines_gfx12).first(6));

}  // namespace kdecl::arch::rdna
