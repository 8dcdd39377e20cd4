// The subcommands of the kdecl tool. Each add_*_command registers its flags
// and stores the action to run in command_state once parsing succeeded.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace kdecl::cli {

struct command_state {
  std::function<int()> action;
  // run and bench stop once the problem is checked and its memory planned
  // (kdecl run --dry-run; the CLI fuzzer sets it for every command line).
  bool dry_run = false;
  int run() const { return action ? action() : 0; }
};

void add_arch_command(CLI::App& app, command_state& state);
void add_list_command(CLI::App& app, command_state& state);
void add_select_command(CLI::App& app, command_state& state);
void add_run_command(CLI::App& app, command_state& state);

}  // namespace kdecl::cli
