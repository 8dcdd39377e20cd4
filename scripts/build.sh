#!/usr/bin/env bash
# Configures and builds kdecl into ./build with the "default" preset (Ninja,
# Release, every backend whose compiler is found). Extra arguments go to CMake.
#
# Kernel-set device code: machine code (SASS) for sm_80 and sm_90a where a GPU can run it;
# without one (CI, a laptop) "check": CUDA as PTX, CUDA and HIP device code at -O0
# (KDECL_DEVICE_CODE_CHECK_ONLY): every kernel is still instantiated, type-checked and
# compiled, but ptxas and the optimisers, nearly all of the kernels' build time, are left to a
# build that runs them. The project's own CUDA programs (GPU tests, benchmarks, the tool)
# follow the same choice (cmake/KdeclDeviceCode.cmake). KDECL_DEVICE_CODE=sass, ptx (optimised
# PTX, for a GPU that JIT-compiles it) or check overrides the guess;
# -DKDECL_DEFAULT_CUDA_GENCODES=... among the arguments wins.
set -euo pipefail
cd "$(dirname "$0")/.."
code=${KDECL_DEVICE_CODE:-}
if [[ -z $code ]]; then
  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then code=sass; else code=check; fi
fi
ptx="-gencode=arch=compute_80,code=compute_80;-gencode=arch=compute_90a,code=compute_90a"
check_only=OFF
case $code in
  sass) gencodes="-gencode=arch=compute_80,code=sm_80;-gencode=arch=compute_90a,code=sm_90a" ;;
  ptx) gencodes=$ptx ;;
  check) gencodes=$ptx; check_only=ON ;;
  *) echo "build.sh: KDECL_DEVICE_CODE='$code' is not sass, ptx or check" >&2; exit 2 ;;
esac
echo "build.sh: kernel device code: $code (KDECL_DEVICE_CODE=sass|ptx|check to choose)"
cmake --preset default "-DKDECL_DEFAULT_CUDA_GENCODES=$gencodes" "-DKDECL_DEVICE_CODE_CHECK_ONLY=$check_only" "$@"
cmake --build --preset default -j "$(nproc)"
