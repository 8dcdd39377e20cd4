#!/usr/bin/env bash
# Sets up, builds and runs the main example. Without a GPU it runs on the host backend and says so.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build.sh -DKDECL_BUILD_TESTS=OFF
./build/examples/basic_gemm
