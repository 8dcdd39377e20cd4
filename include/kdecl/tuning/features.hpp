// What the learned ranking model sees of one (problem, kernel) pair: numbers
// computed from the problem and the kernel key alone (no measurement), so the
// model can rank kernels on shapes it has never seen.
#pragma once

#include <array>
#include <string_view>
#include <vector>

#include "kdecl/gemm/gemm_key.hpp"
#include "kdecl/gemm/gemm_problem.hpp"

namespace kdecl::tuning {

inline constexpr std::size_t feature_count = 33;
using feature_row = std::array<float, feature_count>;

// Names, in feature order (written to the model's sidecar and checked on load).
const std::array<std::string_view, feature_count>& feature_names();

// Features of `kernel` on `normalized_problem`. `best_estimate_us` is the
// analytical model's smallest estimate among the candidates (the estimate
// relative to it is one feature); pass 0 when unknown (the ratio is then 1).
// `alignment` is the largest power of two (<= 16) dividing every byte stride and pointer.
feature_row features_of(const gemm_problem& normalized_problem, const gemm_key& kernel, double best_estimate_us,
                        int alignment = 16);

// The same with the kernel's analytical estimate already known (the dispatcher has it).
feature_row features_of(const gemm_problem& normalized_problem, const gemm_key& kernel, double estimate_us,
                        double best_estimate_us, int alignment);

// Largest power of two (<= 16) dividing every leading dimension and batch stride in bytes.
int alignment_class(const gemm_problem& normalized_problem);

}  // namespace kdecl::tuning
