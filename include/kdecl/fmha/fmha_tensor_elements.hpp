// Elements each tensor of an attention call spans through its strides (1 + its largest
// offset): what a buffer for it must hold. One computation for the problem's 64-bit
// bound (fmha_problem::validate()), the GPU check (src/fmha_check.cpp) and the CLI's
// operands (tools/kdecl/fmha_operands.cpp).
#pragma once

#include <cstdint>

#include "kdecl/fmha/fmha_problem.hpp"

namespace kdecl {

struct fmha_tensor_elements {
  std::int64_t q = 0, k = 0, v = 0, o = 0;
  std::int64_t lse = 0;   // 0 unless the problem asks for the LSE
  std::int64_t bias = 0;  // 0 without an elementwise bias
};

// Of a valid problem, through its normalized strides (packed where they are 0); a tensor
// with no rows spans 0 elements. An invalid problem: every count 0.
fmha_tensor_elements tensor_elements(const fmha_problem& p);

}  // namespace kdecl
