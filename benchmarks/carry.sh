#!/usr/bin/env bash
# Gathers what benchmarks/device.sh needs on the GPU machine into .carry/ (ignored
# by git): the built binaries, the shared libraries that machine lacks, the commit.
# The binaries come from a CUDA build without the HIP backend (HIP's runtime is
# not on the GPU machine):
#   cmake --preset device && cmake --build --preset device
#   benchmarks/carry.sh build-device [BINARY...]
# and on the GPU machine, first: benchmarks/unpack_carry.sh (carry .carryz, not .carry).
# BINARY...: carry only these (paths in the build, e.g. tools/kdecl for a benchmark or tuning call:
# about 12 MB packed instead of 24; the device tool takes about 60 MiB of tree in all).
# A call about one op family can use a build of that family's sets only (-DKDECL_INSTANCE_FILTER=REGEX,
# e.g. fmha_paged: the decode tests and benchmarks in 6 minutes on two cores, 9 MB each, instead of 30
# minutes and 200 MB); tools/kdecl from such a build dispatches to those sets only.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-device}
shift || true
rm -rf .carry && mkdir -p .carry/bin .carry/lib
binaries=(tools/kdecl tests/kdecl_gpu_tests tests/kdecl_gpu_sm80_tests tests/kdecl_gpu_sm90_tests tests/kdecl_gpu_sm90_lowp_tests
          tests/kdecl_shipped_tests tests/kdecl_gpu_alignment_tests tests/kdecl_property_tests
          tests/kdecl_fmha_gpu_tests tests/kdecl_fmha_decode_gpu_tests benchmarks/kdecl_sm90_probe benchmarks/kdecl_bench_decode
          benchmarks/kdecl_dsmem_reduce_probe)
(($#)) && binaries=("$@")
[[ " ${binaries[*]} " == *" tools/kdecl "* ]] || binaries+=(tools/kdecl)  # its libraries are the ones gathered below
# Binaries a build lacks (e.g. one configured without tests, for `kdecl tune`) are left out.
for b in "${binaries[@]}"; do
  if [[ -f "$build/$b" ]]; then cp "$build/$b" .carry/bin/; else echo "carry: $build/$b not built, left out"; fi
done
strip --strip-debug .carry/bin/* 2>/dev/null || true
# Debian's libfmt, SQLite and XGBoost (with dmlc) are not on the GPU machine (Ubuntu 24.04). Nor is
# libcudnn.so.9 on its default path: the carried one is cuDNN's small front library only, so that kdecl
# starts there; cuDNN's sub-libraries (hundreds of MB) come from the GPU machine's PyTorch, which
# benchmarks/bench_ops.sh puts first on LD_LIBRARY_PATH (front and sub-libraries of one release).
for lib in $(ldd .carry/bin/kdecl | awk '/libfmt|libsqlite3|libxgboost|libdmlc|libcudnn\.so/ {print $3}'); do
  cp -L "$lib" .carry/lib/
done
git rev-parse HEAD > .carry/COMMIT
du -sh .carry
# The device tool takes at most 64 MiB of working tree (tracked files included, about
# 32 MiB of them on 2026-11-26), and the binaries above are ~120 MB each, mostly the same kernel
# images: .carryz/ holds them as one zstd archive with a long window (700 MB -> ~22 MB)
# and the zstd binary to unpack it there (benchmarks/unpack_carry.sh). Carry .carryz.
# --ultra -22 packs four ~200 MB binaries into 21.1 MB instead of 22.7 (-19), 130 s on two cores instead of 76:
# those 1.6 MB decided whether a call with an extra binary passed the 64 MiB limit (2026-12-07).
# KDECL_CARRY_LEVEL=19 for a quicker pack.
rm -rf .carryz && mkdir -p .carryz
tar -C .carry -cf - . | zstd -q -T0 --ultra -"${KDECL_CARRY_LEVEL:-22}" --long=30 -o .carryz/carry.tar.zst
cp "$(command -v zstd)" .carryz/zstd
cp .carry/COMMIT .carryz/COMMIT
du -sh .carryz
