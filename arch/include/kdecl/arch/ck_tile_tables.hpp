// Arch-independent tables of CK Tile's dispatcher arch specs, copied entry for
// entry from composable_kernel/dispatcher/codegen/arch_specs_generated.py
// (generated 2026-04-10 from arch_specs.json). Per-arch tables are in
// amd_cdna.hpp / amd_rdna.hpp. Pipeline and dtype names that kdecl does not
// model (compv1, compv2, preshufflev1) are kept by name so the copy is whole.
#pragma once

#include <string_view>

#include "kdecl/arch/arch_spec.hpp"

namespace kdecl::arch::ck_tile {

// ELEMENT_SIZE_MAP (stored in bits: CK's 0.5 bytes is 4 bits).
inline constexpr element_size element_sizes[] = {
    {dtype::fp16, 16}, {dtype::bf16, 16}, {dtype::fp32, 32}, {dtype::fp64, 64},
    {dtype::fp8, 8},   {dtype::bf8, 8},   {dtype::int8, 8},  {dtype::int4, 4},
    {dtype::pk_fp4, 4}, {dtype::int32, 32},
};

// DTYPE_COMBINATIONS: (A, B) -> accumulator.
inline constexpr dtype_combination dtype_combinations[] = {
    {dtype::fp32, dtype::fp32, dtype::fp32, "Full precision"},
    {dtype::fp16, dtype::fp16, dtype::fp32, "Standard half precision"},
    {dtype::bf16, dtype::bf16, dtype::fp32, "Brain float 16"},
    {dtype::fp8, dtype::fp8, dtype::fp32, "FP8 E4M3"},
    {dtype::fp8, dtype::bf8, dtype::fp32, "Mixed FP8/BF8"},
    {dtype::bf8, dtype::fp8, dtype::fp32, "Mixed BF8/FP8"},
    {dtype::bf8, dtype::bf8, dtype::fp32, "BF8 E5M2"},
    {dtype::int8, dtype::int8, dtype::int32, "Integer GEMM"},
    {dtype::pk_fp4, dtype::pk_fp4, dtype::fp32, "Packed 4-bit float"},
};

// LDS_CAPACITY_LIMITS (bytes) for one copy of the A and B block tiles, as CK
// budgets them on a 64 KiB part. "default" applies to pipelines not listed.
struct named_lds_limit {
  std::string_view pipeline;
  int bytes;
};
inline constexpr named_lds_limit lds_capacity_limits[] = {
    {"mem", 65536},          {"compv1", 65536}, {"compv2", 65536},
    {"compv3", 65536},       {"compv4", 32768}, {"compv5", 65536},
    {"preshufflev1", 32768}, {"preshufflev2", 32768},
    {"default", 65536},
};
// arch_specs.json v1.2.0 also limits compv6 to 32768; the generated table above
// lacks it (the drift noted in ck_dispatcher_notes.md section 7). We use the JSON value.
inline constexpr named_lds_limit lds_capacity_fixes[] = {{"compv6", 32768}};

constexpr int lds_limit(pipeline p) {
  const std::string_view name = to_string(p);
  for (const auto& l : lds_capacity_fixes)
    if (l.pipeline == name) return l.bytes;
  for (const auto& l : lds_capacity_limits)
    if (l.pipeline == name) return l.bytes;
  return lds_capacity_limits[std::size(lds_capacity_limits) - 1].bytes;
}

// TRAIT_UNSUPPORTED_COMBINATIONS; CK's "default" epilogue is kdecl's `direct`.
inline constexpr trait_triple unsupported_traits[] = {
    {pipeline::compv3, epilogue::cshuffle, scheduler::interwave},
    {pipeline::compv3, epilogue::direct, scheduler::interwave},
    {pipeline::compv4, epilogue::cshuffle, scheduler::interwave},
    {pipeline::compv4, epilogue::direct, scheduler::interwave},
    {pipeline::compv5, epilogue::cshuffle, scheduler::interwave},
    {pipeline::compv5, epilogue::direct, scheduler::interwave},
    {pipeline::compv6, epilogue::cshuffle, scheduler::interwave},
    {pipeline::compv6, epilogue::direct, scheduler::interwave},
    {pipeline::comp_async, epilogue::cshuffle, scheduler::interwave},
    {pipeline::comp_async, epilogue::direct, scheduler::interwave},
};

// PRESHUFFLE_PIPELINES
inline constexpr pipeline preshuffle_pipelines[] = {pipeline::preshufflev2};

// OPERATOR_TILE_CONSTRAINTS of arch_filter.py (ck_dispatcher_notes.md section 7):
// smallest block tile and the alignment every block tile dimension must have.
inline constexpr shape3 gemm_tile_min{16, 16, 8}, gemm_tile_align{16, 16, 8};
inline constexpr shape3 preshuffle_tile_min{64, 64, 32}, preshuffle_tile_align{32, 32, 16};

}  // namespace kdecl::arch::ck_tile
