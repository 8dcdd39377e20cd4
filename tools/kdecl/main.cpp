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
// Exit codes: 0 success, 1 the program could not do it (no kernel, a failed
// check, a device error), 2 bad input (docs/cli.md lists every error).
// The commands live in run_cli() (cli.hpp), which the CLI fuzzer drives too.
#include "cli.hpp"

int main(int argc, char** argv) { return kdecl::cli::run_cli(argc, argv); }
