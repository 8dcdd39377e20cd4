// Whether nvcc's current device pass should generate a kernel's code for a key of a given arch.
//
// A kernel-set translation unit is compiled for every -gencode target at once (sm_80 and
// sm_90a: cmake/KdeclKernelSets.cmake), so a kernel templated on a key of one arch was compiled
// for both. The sm_80 pass's code of an sm_90 key never runs: the dispatcher takes only the
// device's own arch's kernels, and such a kernel launched by name on an older device is refused
// by its device_reason (least_device_major). The other way round is used: the H100 runs the sm_80
// keys' kernels from their sm_90a code in the tests of that family (no sm_80 GPU is at hand). A
// kernel guards its body with
//
//   #if defined(__CUDA_ARCH__)
//     if constexpr (!device_pass_builds(Cfg::algo.arch, __CUDA_ARCH__)) { __trap(); } else
//   #endif
//     { ...body... }
//
// so that the discarded body is not instantiated in a pass older than its key.
#pragma once

#include "kdecl/core/enums.hpp"

namespace kdecl::kernels::cuda {

// The compute-capability major version whose code serves keys of `a` (0: not a CUDA arch).
constexpr int device_code_major(arch_id a) {
  switch (a) {
    case arch_id::sm_80: case arch_id::sm_86: case arch_id::sm_89: return 8;
    case arch_id::sm_90: return 9;
    default: return 0;
  }
}

// The least compute-capability major version a key's kernel runs on: its arch's (8 for
// anything that is not a CUDA arch, the floor of every kdecl CUDA kernel).
constexpr int least_device_major(arch_id key_arch) {
  return device_code_major(key_arch) > 8 ? device_code_major(key_arch) : 8;
}

// `cuda_arch`: __CUDA_ARCH__ of the pass (800, 900, ...).
constexpr bool device_pass_builds(arch_id key_arch, int cuda_arch) {
  return cuda_arch / 100 >= least_device_major(key_arch);
}

}  // namespace kdecl::kernels::cuda
