// `kdecl tune gemm --problems FILE [--kernels FILTER] [--db FILE]`: times every
// eligible registered kernel on every problem (CUDA events per launch, warm-up,
// median, operands rotated past twice the L2, as `kdecl bench`), writing each
// measurement to a SQLite tuning database as it is taken; rows already there
// are skipped, so a run cut short resumes where it stopped.
// `kdecl tune --export FILE` / `--import FILE` move a database as JSON lines.
// The `tune` command is registered here for every op: `tune conv` and `tune fmha`
// run in tune_conv.cpp and tune_fmha.cpp, with what they share in tune_common.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include "commands.hpp"

namespace kdecl::cli {

void add_tune_command(CLI::App& app, command_state& state);

}  // namespace kdecl::cli
