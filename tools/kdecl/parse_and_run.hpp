// The exit-code contract of a command with its own parser (bench conv, bench fmha):
// help exits 0, a parse error prints CLI11's message and exits 2, an invalid
// argument exits 2 and any other failure 1, each with "kdecl: " and the message.
#pragma once

#include <exception>
#include <functional>
#include <stdexcept>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

namespace kdecl::cli {

// argv[skip] stands for the program name (e.g. skip = 2 for "kdecl bench conv ...").
inline int parse_and_run(CLI::App& app, int argc, const char* const* argv, int skip, const std::function<int()>& action) {
  try {
    app.parse(argc - skip, argv + skip);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  }
  try {
    return action();
  } catch (const std::invalid_argument& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "kdecl: {}\n", e.what());
    return 1;
  }
}

}  // namespace kdecl::cli
