// `kdecl tune conv --problems benchmarks/shapes/conv_*.csv [--directions all]
// [--batches 1 32] [--dtype bf16] [--kernels FILTER] [--db FILE]`: as `tune gemm`,
// for grouped convolution. Every layer of the files, in every direction and
// batch size asked, is one problem (identical problems are measured once); every
// registered kernel that can run it is timed on the GPU with the method of
// docs/perf/ and written to the database as it is measured (op "conv"), so an
// interrupted run resumes where it stopped.
#pragma once

#include "tune_common.hpp"

namespace kdecl::cli {

// Checks the flags and reads the problems (std::invalid_argument on bad input,
// also without a GPU), then tunes. Returns the exit code.
int run_tune_conv(const tune::tune_options& options);

}  // namespace kdecl::cli
