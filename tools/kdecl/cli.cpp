#include "cli.hpp"

#include <algorithm>
#include <new>
#include <string>
#include <string_view>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench_conv.hpp"
#include "bench_fmha.hpp"
#include "bench_gemm.hpp"
#include "commands.hpp"
#include "conv_commands.hpp"
#include "fmha_command.hpp"
#include "fmha_paged_command.hpp"
#include "tune_gemm.hpp"
#include "tune_train.hpp"

namespace kdecl::cli {

namespace {

// Commands that only read and write files the user names (tuning databases,
// models, reports): under dry_run (the fuzzer) they stop once parsed.
bool touches_files_only(const std::string& command) {
  return command == "tune" || command == "train" || command == "eval-selection";
}

}  // namespace

int run_cli(int argc, const char* const* argv, bool dry_run) {
  // select|run conv and select|run fmha have parsers of their own (their flags differ from the GEMM's).
  if (is_conv_command(argc, argv)) return run_conv_command(argc, argv, dry_run);
  // select|run|bench fmha --paged: the serving families (paged KV cache, split-KV decode).
  if (is_paged_fmha_command(argc, argv)) return paged_fmha_main(argc, argv, dry_run);
  if (argc >= 3 && (std::string_view(argv[1]) == "select" || std::string_view(argv[1]) == "run") &&
      std::string_view(argv[2]) == "fmha")
    return fmha_main(argc, argv, dry_run);
  // bench conv|fmha time against cuDNN and write their results (their own parsers, --dry-run plans):
  // under dry_run (the fuzzer) they are not run at all.
  if (argc >= 3 && std::string_view(argv[1]) == "bench" &&
      (std::string_view(argv[2]) == "conv" || std::string_view(argv[2]) == "fmha"))
    return dry_run ? 0 : std::string_view(argv[2]) == "conv" ? bench_conv_main(argc, argv) : bench_fmha_main(argc, argv);
  CLI::App app{"kdecl: declared GPU kernels — arch tables, registry, selection, runs and benchmarks"};
  app.require_subcommand(1);
  command_state state;
  state.dry_run = dry_run;
  add_arch_command(app, state);
  add_list_command(app, state);
  add_select_command(app, state);
  add_run_command(app, state);
  add_bench_command(app, state);
  add_tune_command(app, state);
  add_train_command(app, state);
  add_eval_selection_command(app, state);
  // CLI11 would answer an unknown command with "A subcommand is required": name it.
  const auto commands = app.get_subcommands([](CLI::App*) { return true; });
  if (argc > 1 && argv[1][0] != '-' &&
      std::none_of(commands.begin(), commands.end(), [&](CLI::App* c) { return c->check_name(argv[1]); })) {
    fmt::print(stderr, "kdecl: unknown command '{}'; commands: arch, list, select, run, bench, tune, train, "
               "eval-selection (kdecl --help)\n",
               argv[1]);
    return 2;
  }
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
  if (dry_run && argc > 1 && touches_files_only(argv[1])) return 0;
  try {
    return state.run();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "kdecl: out of memory (std::bad_alloc) although the memory plan said it fits: a kdecl bug\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 1;
  }
}

}  // namespace kdecl::cli
