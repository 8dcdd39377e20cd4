// The kdecl command line as a function: main() calls it, and so does the CLI
// fuzzer (tests/fuzz/), with dry_run set so that run and bench never allocate.
//
// Exit codes (docs/cli.md lists every error):
//   0  success
//   1  the program could not do what a valid command asked: no registered
//      kernel runs the problem, a check failed, a device or internal error
//   2  bad input: the command line, a value, a problem, or more memory than there is
#pragma once

namespace kdecl::cli {

int run_cli(int argc, const char* const* argv, bool dry_run = false);

}  // namespace kdecl::cli
