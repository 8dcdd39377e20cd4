#!/usr/bin/env bash
# Installs the Debian packages kdecl builds with (idempotent: apt runs only when something is missing).
# The CUDA toolkit is not a Debian package here: it is used from /usr/local/cuda when present.
set -euo pipefail
packages=(build-essential cmake ninja-build pkg-config
          libboost-dev libfmt-dev libgtest-dev googletest libcli11-dev nlohmann-json3-dev
          libsqlite3-dev libxgboost-dev
          hipcc libamdhip64-dev python3 python3-matplotlib
          zstd  # tests/ptx/sm80_ptx_guard.py reads nvcc's compressed PTX
          clang libclang-rt-dev)  # libFuzzer, ASan, UBSan for tests/fuzz (clang-15 from hipcc has no runtime)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: all Debian packages present"
fi

# NVIDIA's cudnn-frontend (header-only C++ graph API for cuDNN's fused attention, the baseline of
# `kdecl bench fmha`) is no Debian package: its headers come from the nvidia-cudnn-frontend wheel on
# PyPI (the include/ folder of the wheel, whose name the headers rely on), pinned, into
# /usr/local/include/cudnn-frontend/include where cmake/FindCUDNN.cmake looks. Optional: without it `kdecl bench fmha` times kdecl alone and says so.
frontend_version=1.32.0
frontend_dir=/usr/local/include/cudnn-frontend
if grep -qs "define CUDNN_FRONTEND_MINOR_VERSION $(cut -d. -f2 <<< "$frontend_version")\$" "$frontend_dir/include/cudnn_frontend_version.h"; then
  echo "setup: cudnn-frontend $frontend_version present"
elif command -v python3 > /dev/null && python3 -m pip --version > /dev/null 2>&1; then
  tmp=$(mktemp -d)
  if python3 -m pip download --quiet --no-deps --dest "$tmp" "nvidia-cudnn-frontend==$frontend_version" &&
     python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("include/")])' \
       "$(ls "$tmp"/nvidia_cudnn_frontend-*.whl)" "$tmp/x"; then
    rm -rf "$frontend_dir" && mkdir -p "$frontend_dir" && mv "$tmp/x/include" "$frontend_dir/include"
    echo "setup: cudnn-frontend $frontend_version headers in $frontend_dir/include"
  else
    echo "setup: note: could not fetch nvidia-cudnn-frontend $frontend_version (kdecl bench fmha will lack cuDNN)"
  fi
  rm -rf "$tmp"
else
  echo "setup: note: no pip: cudnn-frontend not installed (kdecl bench fmha will lack cuDNN)"
fi
