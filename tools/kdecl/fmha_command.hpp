// `kdecl select fmha` and `kdecl run fmha`: the attention forward from the
// command line. main() hands argv to fmha_main() when the operation is fmha, so
// the GEMM flags and these never meet in one parser.
//
//   kdecl select fmha --b 2 --hq 32 --hkv 8 --sq 4096 --d 128 --mask causal [--explain]
//   kdecl run fmha --varlen 512:512,0:300,77:77 --hq 16 --hkv 8 --d 256 --softcap 50 --window 4096,0
//
// Exit codes: 0 success, 1 a check or selection failed, 2 bad input.
#pragma once

namespace kdecl::cli {

// argv[1] is "select" or "run", argv[2] is "fmha". With dry_run (the CLI
// fuzzer), run stops once the problem and the device are checked.
int fmha_main(int argc, const char* const* argv, bool dry_run = false);

}  // namespace kdecl::cli
