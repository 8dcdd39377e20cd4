// `kdecl tune fmha --problems benchmarks/shapes/fmha_*.csv [--dtype bf16,fp16]
// [--kernels FILTER] [--db FILE]`: as `tune gemm`, for the attention forward pass.
// Every row of the shape lists in every dtype asked is one problem (identical
// problems measured once); every registered forward kernel that can run it is
// timed on the GPU with the method of docs/perf/ and written to the database as
// it is measured (op "fmha"), so an interrupted run resumes where it stopped.
#pragma once

#include "tune_common.hpp"

namespace kdecl::cli {

// Checks the flags and reads the problems (std::invalid_argument on bad input,
// also without a GPU), then tunes. Returns the exit code.
int run_tune_fmha(const tune::tune_options& options);

}  // namespace kdecl::cli
