// What the learned ranking model sees of one (attention problem, kernel) pair:
// the problem's sizes, head dims and features (mask, bias, soft-cap, sinks,
// LSE, variable lengths), and how the kernel's tiles cover it (padded head
// dims, query tiles and waves over the SMs, key/value iterations), with the
// analytical estimate (fmha_estimate_us) and its ratio to the best candidate's.
#pragma once

#include <array>
#include <string_view>

#include "kdecl/fmha/fmha_key.hpp"
#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl::tuning {

inline constexpr std::size_t fmha_feature_count = 36;
using fmha_feature_row = std::array<float, fmha_feature_count>;

// Names, in feature order.
const std::array<std::string_view, fmha_feature_count>& fmha_feature_names();

// Features of `kernel` on a normalized problem, given its estimate and the smallest among the candidates.
fmha_feature_row fmha_features_of(const fmha_problem& normalized_problem, const fmha_key& kernel, double estimate_us,
                                  double best_estimate_us);

}  // namespace kdecl::tuning
