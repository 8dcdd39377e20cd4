// `kdecl bench gemm`: for each problem, times the dispatcher's choice, the best
// registered instance and cuBLASLt in the same process, with CUDA events,
// warm-up, the median of many runs, random inputs and rotating buffer sets
// larger than twice the L2; writes JSON, a markdown table and a PNG plot.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace kdecl::cli {

void add_bench_command(CLI::App& app, command_state& state);

}  // namespace kdecl::cli
