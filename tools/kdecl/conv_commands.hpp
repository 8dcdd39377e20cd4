// `kdecl select conv` and `kdecl run conv`: the convolution forms of select
// and run, with their own flags (conv_options.hpp). main() hands them the
// command line when its first two words are "select conv" or "run conv".
//
// Exit codes as for every command: 0 success, 1 a check or selection failed, 2 bad input.
#pragma once

#include <string_view>

namespace kdecl::cli {

// True when argv names a convolution command (argv[1] select or run, argv[2] conv).
bool is_conv_command(int argc, const char* const* argv);

// Parses and runs it; returns the exit code. With dry_run (the CLI fuzzer), run
// stops once the layers and the device are checked.
int run_conv_command(int argc, const char* const* argv, bool dry_run = false);

}  // namespace kdecl::cli
