// What the learned ranking model sees of one (convolution problem, kernel) pair.
// Every implicit-GEMM kernel is a GEMM to the cost model (conv_heuristic.hpp), so
// the first features are the GEMM's (features.hpp) of that implicit GEMM; the
// rest say what the GEMM view leaves out: direction, filter geometry, groups,
// per-tensor access widths, the direct kernels.
#pragma once

#include <array>
#include <string_view>

#include "kdecl/conv/grouped_conv_key.hpp"
#include "kdecl/conv/grouped_conv_problem.hpp"
#include "kdecl/tuning/features.hpp"

namespace kdecl::tuning {

inline constexpr std::size_t conv_extra_feature_count = 23;
inline constexpr std::size_t conv_feature_count = feature_count + conv_extra_feature_count;
using conv_feature_row = std::array<float, conv_feature_count>;

// Names, in feature order (the GEMM's first, prefixed "gemm_").
const std::array<std::string_view, conv_feature_count>& conv_feature_names();

// Largest power of two (<= 16) dividing every tensor's channel count per group and
// strides in bytes: the widest access the problem allows.
int conv_alignment(const grouped_conv_problem& normalized_problem);

// Features of `kernel` on a normalized problem, given its analytical estimate
// (conv_heuristic's estimate_microseconds) and the smallest among the candidates.
// `alignment` as conv_alignment, lowered by the pointers' where they are known; `device` as for the GEMM.
conv_feature_row conv_features_of(const grouped_conv_problem& normalized_problem, const grouped_conv_key& kernel,
                                  double estimate_us, double best_estimate_us, int alignment,
                                  device_facts device = {});

}  // namespace kdecl::tuning
