#!/usr/bin/env bash
# Gathers what benchmarks/device.sh needs on the GPU machine into .carry/ (ignored
# by git): the built binaries, the shared libraries that machine lacks, the commit.
# The binaries come from a CUDA build without the HIP backend (HIP's runtime is
# not on the GPU machine):
#   cmake --preset device && cmake --build --preset device
#   benchmarks/carry.sh build-device
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
rm -rf .carry && mkdir -p .carry/bin .carry/lib
for b in tools/kdecl tests/kdecl_gpu_tests tests/kdecl_gpu_sm80_tests tests/kdecl_gpu_sm90_tests \
         tests/kdecl_shipped_tests benchmarks/kdecl_sm90_probe; do
  cp "$build/$b" .carry/bin/
done
strip --strip-debug .carry/bin/* 2>/dev/null || true
# Debian's libfmt is not on the GPU machine (Ubuntu 24.04); everything else is.
for lib in $(ldd .carry/bin/kdecl | awk '/libfmt/ {print $3}'); do cp -L "$lib" .carry/lib/; done
git rev-parse HEAD > .carry/COMMIT
du -sh .carry
