#!/usr/bin/env bash
# Sets up, builds and runs every test (unit, host kernels, compile-fail; GPU tests skip without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup-debian.sh
scripts/build.sh -DKDECL_BUILD_TESTS=ON
ctest --test-dir build --output-on-failure -j "$(nproc)"
