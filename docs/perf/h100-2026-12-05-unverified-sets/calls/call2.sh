#!/usr/bin/env bash
# 2026-12-05 call 2: benchmarks/unverified.sh gemm (the block-scaled fp8 GEMM of instances/unverified/).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
timeout 500 benchmarks/unverified.sh gemm
echo "unverified gemm rc=$?" | tee -a "$out/summary.txt"
