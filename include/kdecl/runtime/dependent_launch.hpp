// Whether kernels that can start under the kernel before them in their stream (programmatic
// dependent launch, sm_90 and later: kernels/cuda/sm90/dependent_launch.cuh) are launched that
// way. On by default; KDECL_DEPENDENT_LAUNCH=0 in the environment turns it off for the process,
// and a program may switch it at any time (the next launch reads it): benchmarks time both ways
// in one process (`kdecl bench gemm --dependent-launch-ab`, benchmarks/sm90_probe.cu pdl).
// Host-only: the CLI and the tests read it without a CUDA compiler.
#pragma once

#include <atomic>
#include <cstdlib>
#include <string_view>

namespace kdecl {

inline std::atomic<bool>& dependent_launch_enabled() {
  static std::atomic<bool> enabled{[] {
    const char* v = std::getenv("KDECL_DEPENDENT_LAUNCH");
    return v == nullptr || std::string_view(v) != "0";
  }()};
  return enabled;
}

// Turns it off for its lifetime and restores what it found (one thread at a time).
class without_dependent_launch {
 public:
  without_dependent_launch() : was_(dependent_launch_enabled().exchange(false)) {}
  ~without_dependent_launch() { dependent_launch_enabled() = was_; }
  without_dependent_launch(const without_dependent_launch&) = delete;
  without_dependent_launch& operator=(const without_dependent_launch&) = delete;

 private:
  bool was_;
};

}  // namespace kdecl
