// Runs a GEMM kernel on fresh random data (outputs poisoned first) and checks
// it against the double-precision host reference: what `kdecl run`, the
// example and the GPU test suite share.
#pragma once

#include <string>

#include "kdecl/gemm/gemm_dispatcher.hpp"

namespace kdecl {

struct gemm_check {
  std::string kernel;
  double error = 0.0;      // relative Frobenius error vs the reference; NaN if the output holds a NaN
  double tolerance = 0.0;
  double milliseconds = 0.0;  // one timed run after a warm-up
  bool passed = false;
};

// Runs `kernel` (or, when empty, the dispatcher's choice) on fresh random inputs.
// Throws std::runtime_error with the dispatcher's explanation when nothing can run it.
gemm_check run_and_check(const gemm_dispatcher& dispatcher, const gemm_problem& problem, float alpha, float beta,
                         const std::string& kernel = "", std::uint64_t seed = 1);

}  // namespace kdecl
