// Command-line flags that describe one GEMM problem (shared by select, run and bench).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "kdecl/gemm/gemm_problem.hpp"
#include "kdecl/runtime/device.hpp"

namespace kdecl::cli {

// A transform for integer options: accepts a decimal integer within int64 and
// passes it on without leading zeros. (CLI11 itself reads "010" as octal 8 and
// saturates 10^20 to 2^63-1 without a word.)
CLI::Validator decimal_integer();

struct gemm_options {
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::string dtype = "fp16";
  std::string dtypes;       // "a,b,c" overrides dtype
  std::string compute;      // default: the A dtype
  std::string layout = "rcr";
  std::string multi_d;      // "op:num_d", e.g. gelu:1
  bool preshuffle = false;
  bool block_scaled = false;
  float alpha = 1.0f, beta = 0.0f;
  std::string device = "auto";

  void add_to(CLI::App& app, bool sizes_required);
  // Throws std::invalid_argument naming the flag and value.
  gemm_problem problem() const;
  // Throws std::invalid_argument when alpha or beta is not finite.
  void check_scalars() const;
  kdecl::device target() const;
};

}  // namespace kdecl::cli
