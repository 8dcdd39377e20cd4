// One CUDA error check for the benchmark programs: on an error, the failing call, where it is and
// CUDA's message on stderr, then exit status 1 (a probe has nothing to recover). The programs
// wrap it in a one-line macro that passes the call's text.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <source_location>

#include <cuda_runtime.h>

namespace kdecl_bench {

inline void check_cuda(cudaError_t e, const char* call, std::source_location at = std::source_location::current()) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s:%u: %s: %s\n", at.file_name(), unsigned(at.line()), call, cudaGetErrorString(e));
  std::exit(1);
}

}  // namespace kdecl_bench
