// The attention bias as text: the --bias flag of kdecl select|run|bench fmha and the bias column of
// benchmarks/shapes/fmha_*.csv.
#pragma once

#include <string>

#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl::cli {

// Applies `bias` to p: none, alibi, elementwise[:b|:h|:1] (a [B|1, H|1, Sq, Skv] tensor) or
// keys[:b|:h|:1] (one bias per key for every query row, [B|1, H|1, 1, Skv]; keys:b is a padding
// mask). False, p unchanged, for any other text.
bool apply_bias_option(fmha_problem& p, const std::string& bias);

}  // namespace kdecl::cli
