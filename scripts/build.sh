#!/usr/bin/env bash
# Configures and builds kdecl into ./build with the "default" preset (Ninja,
# Release, every backend whose compiler is found). Extra arguments go to CMake.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset default "$@"
cmake --build --preset default -j "$(nproc)"
