// kdecl select|run|bench fmha --paged: the serving families (docs/fmha_serving.md) from
// the command line: the decode plan (one stage or split-KV, splits, workspace), a run
// checked against the exact host reference (host: the split-KV host path; CUDA: the
// decode kernels), and a timing against the device copy bandwidth and cuDNN (CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kdecl/fmha/paged_kv.hpp"

namespace kdecl::cli {

// argv[1] is select, run or bench, argv[2] is fmha, and --paged is among the arguments.
bool is_paged_fmha_command(int argc, const char* const* argv);

int paged_fmha_main(int argc, const char* const* argv, bool dry_run = false);

// CUDA builds (fmha_paged_cuda.cu): the decoder's plan on the current device; a run on it
// compared with the host reference (returns the report line, sets pass); timings.
struct paged_gpu_check {
  bool pass = false;
  int splits = 0;
  std::string kernel;  // the dispatcher's choice
  double max_o_error = 0, max_lse_error = 0;
  std::string error;
};
std::string paged_plan_on_gpu(const fmha_paged_problem& p);
paged_gpu_check paged_check_on_gpu(const fmha_paged_problem& p, std::uint64_t seed);
int paged_bench_on_gpu(const std::vector<fmha_paged_problem>& problems, int reps, bool cudnn);

}  // namespace kdecl::cli
