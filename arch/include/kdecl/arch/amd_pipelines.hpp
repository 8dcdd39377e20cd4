// What the CK Tile pipelines offer on an AMD target, derived from that target's
// CK tables (warp configs, warp tiles, preshuffle warp tiles, LDS size) so the
// seed data stays the single source. Used for the AMD targets kdecl has no kernel
// for (gfx908, gfx950, RDNA); gfx90a and gfx942 use amd_hip_kernel.hpp. The
// sweeps and access widths at the top are shared with it.
#pragma once

#include <array>
#include <cstddef>

#include "kdecl/arch/arch_spec.hpp"
#include "kdecl/arch/ck_tile_tables.hpp"

namespace kdecl::arch::amd {

// ---- choices shared by every AMD pipeline -----------------------------------
inline constexpr int vector_widths[] = {16, 8, 4};
inline constexpr int vector_default = 16;
inline constexpr int tile_mn_sweep[] = {16, 32, 64, 96, 128, 160, 192, 224, 256};
inline constexpr int tile_k_sweep[] = {8, 16, 32, 64, 128, 256};
inline constexpr shape2 no_cluster[] = {{1, 1}};
// Layouts of the standard pipelines (C row-major); preshuffled B is rcr only.
inline constexpr std::uint32_t standard_layouts = layouts(rcr, rrr, crr, ccr);
inline constexpr std::uint32_t preshuffle_layouts = layouts(rcr);

// C dtypes a kernel may write for a given A dtype.
constexpr std::uint32_t c_types_for(dtype a) {
  switch (a) {
    case dtype::fp16: return bits(dtype::fp16, dtype::fp32);
    case dtype::bf16: return bits(dtype::bf16, dtype::fp32);
    case dtype::fp32: return bits(dtype::fp32);
    case dtype::int8: return bits(dtype::int32);
    default: return bits(dtype::fp16, dtype::bf16, dtype::fp32);  // fp8, bf8, pk_fp4
  }
}

// Ring depth per pipeline: compv4 double-buffers LDS, the others hold one copy.
constexpr int_range stages_of(pipeline p) {
  return p == pipeline::compv4 ? int_range{2, 2, 2} : int_range{1, 1, 1};
}

// LDS a pipeline may use on a part with `lds_bytes` of LDS: CK's per-copy limit
// (budgeted for 64 KiB parts) times the ring depth, scaled to the part
// (gfx950: 160 KiB). On 64 KiB parts this is exactly CK's check.
constexpr int lds_capacity(pipeline p, int lds_bytes) {
  return static_cast<int>(static_cast<long long>(ck_tile::lds_limit(p)) * stages_of(p).def * lds_bytes / 65536);
}

// ---- derivation --------------------------------------------------------------

// One offer per CK warp-tile list ("a_b_acc"), compute = A. Preshuffle offers
// are built from the preshuffle list itself (rcr only).
template <std::size_t N>
constexpr std::array<dtype_offer, N> offers(const warp_tile_list (&tiles)[N],
                                            std::span<const warp_tile_list> preshuffle,
                                            std::uint32_t layout_set = standard_layouts) {
  std::array<dtype_offer, N> out{};
  for (std::size_t i = 0; i < N; ++i) {
    const auto& t = tiles[i];
    std::span<const shape3> pre{};
    for (const auto& p : preshuffle)
      if (p.a == t.a && p.b == t.b && p.acc == t.acc) pre = p.tiles;
    out[i] = {t.a, t.b, t.acc, t.a, c_types_for(t.a), layout_set, t.tiles, pre};
  }
  return out;
}

constexpr pipeline_caps standard_pipeline(pipeline p, std::span<const dtype_offer> dt,
                                          std::span<const shape3> warps, int lds_bytes) {
  return {p, dt, warps, 0, ck_tile::gemm_tile_min, ck_tile::gemm_tile_align, false, 0,
          tile_mn_sweep, tile_mn_sweep, tile_k_sweep, stages_of(p),
          bits(epilogue::direct, epilogue::cshuffle),
          bits(scheduler::intrawave, scheduler::interwave),  // exclusions: ck_tile::unsupported_traits
          vector_widths, vector_default, smem_formula::ring_ab, lds_capacity(p, lds_bytes),
          no_cluster, false};
}

constexpr pipeline_caps preshuffle_pipeline(std::span<const dtype_offer> dt,
                                            std::span<const shape3> warps, int lds_bytes) {
  const pipeline p = pipeline::preshufflev2;
  pipeline_caps c{p, dt, warps, 0, ck_tile::preshuffle_tile_min, ck_tile::preshuffle_tile_align, false, 0,
                  tile_mn_sweep, tile_mn_sweep, tile_k_sweep, stages_of(p),
                  bits(epilogue::direct, epilogue::cshuffle), bits(scheduler::intrawave),
                  vector_widths, vector_default, smem_formula::ring_ab, lds_capacity(p, lds_bytes),
                  no_cluster, true};
  c.variants = bit(gemm_variant::preshuffle);
  return c;
}

// The seed does not restrict pipelines per arch: every AMD target gets the six
// standard pipelines, plus preshufflev2 where it has preshuffle warp tiles.
constexpr std::array<pipeline_caps, 7> pipelines(std::span<const dtype_offer> dt,
                                                 std::span<const dtype_offer> preshuffle_dt,
                                                 std::span<const shape3> warps, int lds_bytes) {
  return {standard_pipeline(pipeline::mem, dt, warps, lds_bytes),
          standard_pipeline(pipeline::compv3, dt, warps, lds_bytes),
          standard_pipeline(pipeline::compv4, dt, warps, lds_bytes),
          standard_pipeline(pipeline::compv5, dt, warps, lds_bytes),
          standard_pipeline(pipeline::compv6, dt, warps, lds_bytes),
          standard_pipeline(pipeline::comp_async, dt, warps, lds_bytes),
          preshuffle_pipeline(preshuffle_dt, warps, lds_bytes)};
}

}  // namespace kdecl::arch::amd
