#!/usr/bin/env bash
# Configures and builds kdecl into ./build with the "default" preset (Ninja,
# Release, every backend whose compiler is found). Extra arguments go to CMake.
#
# Kernel-set device code: machine code (SASS) for sm_80 and sm_90a where a GPU can run it;
# without one (CI, a laptop) PTX only: nvcc still instantiates and compiles every kernel,
# only ptxas is skipped, about a third of the kernels' build time. The project's own CUDA
# programs (GPU tests, benchmarks, the tool) follow the same choice (cmake/KdeclDeviceCode.cmake). KDECL_DEVICE_CODE=sass
# or ptx overrides the guess; -DKDECL_DEFAULT_CUDA_GENCODES=... among the arguments wins.
set -euo pipefail
cd "$(dirname "$0")/.."
code=${KDECL_DEVICE_CODE:-}
if [[ -z $code ]]; then
  if command -v nvidia-smi > /dev/null 2>&1 && nvidia-smi -L > /dev/null 2>&1; then code=sass; else code=ptx; fi
fi
case $code in
  sass) gencodes="-gencode=arch=compute_80,code=sm_80;-gencode=arch=compute_90a,code=sm_90a" ;;
  ptx) gencodes="-gencode=arch=compute_80,code=compute_80;-gencode=arch=compute_90a,code=compute_90a" ;;
  *) echo "build.sh: KDECL_DEVICE_CODE='$code' is not sass or ptx" >&2; exit 2 ;;
esac
echo "build.sh: kernel device code: $code (KDECL_DEVICE_CODE=sass|ptx to choose)"
cmake --preset default "-DKDECL_DEFAULT_CUDA_GENCODES=$gencodes" "$@"
cmake --build --preset default -j "$(nproc)"
