// Fuzzes the kdecl command line: the input is a command line, one argument per
// line (at most 32 arguments of 256 bytes), run through run_cli() exactly as
// main() does, with dry_run set so that `run` and `bench` stop once the problem
// is checked and its memory planned (they never allocate operands here).
// `--problems FILE` is left out: it reads files, which this target does not fuzz.
//
// Invariants: no crash or sanitizer report, no exception escapes, and the exit
// code is 0, 1 or 2.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli.hpp"

// A command line allocates thousands of small strings (CLI11): recording 30
// frames of stack per allocation took a third of the time. Reports keep the
// full stack of the bad access; the allocation's stack is cut to 4 frames.
extern "C" const char* __asan_default_options() { return "malloc_context_size=4"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"kdecl"};
  std::string current;
  for (std::size_t i = 0; i < size; ++i) {
    if (data[i] == '\n') {
      args.push_back(current);
      current.clear();
    } else {
      current += char(data[i]);
    }
    if (args.size() > 32 || current.size() > 256) return 0;
  }
  if (!current.empty()) args.push_back(current);
  std::vector<const char*> argv;
  for (const auto& a : args) {
    if (a.find("--problems") != std::string::npos) return 0;
    argv.push_back(a.c_str());
  }
  const int rc = kdecl::cli::run_cli(int(argv.size()), argv.data(), /*dry_run=*/true);
  if (rc < 0 || rc > 2) {
    std::fprintf(stderr, "fuzz_cli: exit code %d\n", rc);
    std::abort();
  }
  return 0;
}
