// Why a GPU kernel of the block_scaled variant cannot read a problem's scales (std::nullopt: it
// can): the rule every block-scaled kernel shares, whatever its pipeline (sm90/problem_reason.cuh,
// sm80/gemm_sm80.cuh). Where the scales lie: gemm_problem.hpp, block_scale_layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::kernels {

inline std::optional<std::string> block_scales_reason(const gemm_problem& p, const gemm_args& args) {
  const auto float_aligned = [](const float* s) { return reinterpret_cast<std::uintptr_t>(s) % alignof(float) == 0; };
  if (args.scale_a == nullptr || args.scale_b == nullptr || !float_aligned(args.scale_a) ||
      !float_aligned(args.scale_b))
    return "the block scales must be non-null and aligned to their 4-byte floats";
  if (p.scales.ld_a < p.m || p.scales.ld_b < p.k_blocks())
    return "the scales' leading dimensions must cover M and ceil(K / 128) (problem not normalized)";
  return std::nullopt;
}

}  // namespace kdecl::kernels
