// kdecl — inspect the arch tables and the kernel registry, select and run kernels.
//
//   kdecl arch [NAME] [--json | --markdown]
//   kdecl list [--filter EXPR] [--json]
//   kdecl select gemm --m M --n N --k K [--dtype ..] [--layout ..] [--explain]
//   kdecl run gemm --m M --n N --k K [...]       (checks against the host reference)
//   kdecl bench gemm [...]                       (see bench_gemm.hpp)
//   kdecl bench conv|fmha [...]                  (against cuDNN: see bench_conv.hpp, bench_fmha.hpp)
//   kdecl tune gemm --problems FILE [--db FILE]  (see tune_gemm.hpp; also --export/--import)
//   kdecl train --db FILE --out MODEL            (see tune_train.hpp)
//   kdecl eval-selection --db FILE [--out DIR]
//   kdecl select|run fmha --hq H --d D --sq S [...]  (see fmha_command.hpp)
//   kdecl select|run conv --n N --c C --k K [--g G] --hw H,W --filter F [...] | --problems FILE
//                                                (see conv_commands.hpp)
//
// Exit codes: 0 success, 1 a check or selection failed, 2 bad input.
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_conv.hpp"
#include "bench_fmha.hpp"
#include "bench_gemm.hpp"
#include "commands.hpp"
#include "tune_gemm.hpp"
#include "tune_train.hpp"
#include "conv_commands.hpp"
#include "fmha_command.hpp"

int main(int argc, char** argv) {
  if (kdecl::cli::is_conv_command(argc, argv)) return kdecl::cli::run_conv_command(argc, argv);
  if (argc >= 3 && (std::string_view(argv[1]) == "select" || std::string_view(argv[1]) == "run") &&
      std::string_view(argv[2]) == "fmha")
    return kdecl::cli::fmha_main(argc, argv);
  if (argc >= 3 && std::string_view(argv[1]) == "bench" && std::string_view(argv[2]) == "conv")
    return kdecl::cli::bench_conv_main(argc, argv);
  if (argc >= 3 && std::string_view(argv[1]) == "bench" && std::string_view(argv[2]) == "fmha")
    return kdecl::cli::bench_fmha_main(argc, argv);
  CLI::App app{"kdecl: declared GPU kernels — arch tables, registry, selection, runs and benchmarks"};
  app.require_subcommand(1);
  kdecl::cli::command_state state;
  kdecl::cli::add_arch_command(app, state);
  kdecl::cli::add_list_command(app, state);
  kdecl::cli::add_select_command(app, state);
  kdecl::cli::add_run_command(app, state);
  kdecl::cli::add_bench_command(app, state);
  kdecl::cli::add_tune_command(app, state);
  kdecl::cli::add_train_command(app, state);
  kdecl::cli::add_eval_selection_command(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message
    return 2;
  }
  try {
    return state.run();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 1;
  }
}
