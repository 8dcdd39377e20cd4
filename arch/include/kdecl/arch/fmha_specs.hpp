// FMHA tables per target, from CK Tile's fmha_arch_specs.json and
// codegen/fmha/validation.py (ck_dispatcher_notes.md section 8). NVIDIA and
// host targets offer no FMHA pipeline yet (their kernels come later), so any
// FMHA declaration for them is rejected with fmha_pipeline_not_offered_on_arch.
#pragma once

#include <span>

#include "kdecl/arch/arch_spec.hpp"
#include "kdecl/fmha/fmha_key.hpp"

namespace kdecl::arch::fmha {

struct hdim_pair {
  int q, v;
};

struct dtype_offer {
  dtype qkv, o;
  std::span<const hdim_pair> hdims;
  std::span<const shape3> warp_tiles;
};

struct target {
  arch_id id;
  std::span<const dtype_offer> dtypes;
  std::span<const fmha_pipeline> pipelines;
  bool trload, v3;
};

// supported_hdims
inline constexpr hdim_pair hdims_16bit[] = {{32, 32}, {64, 64}, {80, 96}, {96, 128}, {128, 128},
                                            {160, 160}, {192, 128}, {192, 192}, {256, 256}};
inline constexpr hdim_pair hdims_fp32[] = {{32, 32}, {48, 48}, {64, 64}, {96, 128}, {128, 128}, {192, 192}, {256, 256}};
inline constexpr hdim_pair hdims_fp8[] = {{64, 64}, {128, 128}, {192, 128}, {256, 256}};
inline constexpr hdim_pair hdims_fp8fp32[] = {{128, 128}};

// fmha_warp_tiles
inline constexpr shape3 warp_tiles_16bit[] = {{32, 32, 16}, {16, 16, 32}};
inline constexpr shape3 warp_tiles_fp32[] = {{16, 16, 16}};
inline constexpr shape3 warp_tiles_fp8[] = {{32, 32, 32}};

// k0max_map: hdim_q -> padded K tile
inline constexpr hdim_pair k0max_map[] = {{32, 32}, {48, 48}, {64, 64}, {80, 96}, {96, 128},
                                          {128, 128}, {160, 256}, {192, 192}, {256, 256}};
constexpr int k0max_for(int hdim_q) {
  for (const auto& e : k0max_map)
    if (e.q == hdim_q) return e.v;
  return 0;
}

// tile_sweep_ranges (values an m0 / n0 / k0 wildcard tries)
inline constexpr int sweep_m0[] = {16, 32, 64, 128, 192, 256};
inline constexpr int sweep_n0[] = {16, 32, 64, 96, 128, 192, 256, 384};
inline constexpr int sweep_k0[] = {16, 32, 64, 96, 128, 256};

// lds_limits for the non-async pipelines (qr, qs); async ones use their own formula.
inline constexpr int lds_limit_qr = 65536;

inline constexpr dtype_offer dtypes_gfx90a[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp32, dtype::fp32, hdims_fp32, warp_tiles_fp32},
};
inline constexpr dtype_offer dtypes_gfx94x[] = {  // gfx942 and gfx950
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp32, dtype::fp32, hdims_fp32, warp_tiles_fp32},
    {dtype::fp8, dtype::fp8, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::fp16, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::bf16, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::fp32, hdims_fp8fp32, warp_tiles_fp8},
    {dtype::bf8, dtype::bf8, hdims_fp8, warp_tiles_fp8},
};
inline constexpr dtype_offer dtypes_gfx1100[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
};
inline constexpr dtype_offer dtypes_gfx1201[] = {
    {dtype::fp16, dtype::fp16, hdims_16bit, warp_tiles_16bit},
    {dtype::bf16, dtype::bf16, hdims_16bit, warp_tiles_16bit},
    {dtype::fp8, dtype::fp8, hdims_fp8, warp_tiles_fp8},
    {dtype::fp8, dtype::bf16, hdims_fp8, warp_tiles_fp8},
};

using P = fmha_pipeline;
inline constexpr fmha_pipeline pipes_gfx9[] = {P::qr, P::qr_async, P::qs, P::qr_pagedkv, P::qr_nwarp_sshuffle, P::appendkv};
inline constexpr fmha_pipeline pipes_gfx950[] = {P::qr, P::qr_async, P::qs, P::qr_pagedkv, P::qr_nwarp_sshuffle,
                                                 P::appendkv, P::qr_async_trload, P::qr_async_trload_v3, P::v3};
inline constexpr fmha_pipeline pipes_rdna[] = {P::qr, P::qs, P::qr_pagedkv, P::qr_nwarp_sshuffle, P::appendkv};

inline constexpr target targets[] = {
    {arch_id::host, {}, {}, false, false},
    {arch_id::sm_80, {}, {}, false, false},
    {arch_id::sm_86, {}, {}, false, false},
    {arch_id::sm_89, {}, {}, false, false},
    {arch_id::sm_90, {}, {}, false, false},
    {arch_id::gfx908, {}, {}, false, false},
    {arch_id::gfx90a, dtypes_gfx90a, pipes_gfx9, false, false},
    {arch_id::gfx942, dtypes_gfx94x, pipes_gfx9, false, false},
    {arch_id::gfx950, dtypes_gfx94x, pipes_gfx950, true, true},
    {arch_id::gfx1100, dtypes_gfx1100, pipes_rdna, false, false},
    {arch_id::gfx1200, {}, {}, false, false},
    {arch_id::gfx1201, dtypes_gfx1201, pipes_rdna, false, false},
};

constexpr const target& spec_of(arch_id a) { return targets[static_cast<std::size_t>(a)]; }

}  // namespace kdecl::arch::fmha
