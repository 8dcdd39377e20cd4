#!/usr/bin/env bash
# 2026-12-05 call 1: the kernel sets compiled and never run since 2026-12-02 (no GPU lent in between):
# the paged decode/append GPU tests (append's arguments were shared with HIP in 9d7b609), then
# benchmarks/unverified.sh conv (the fused-epilogue convolution sets of instances/unverified/).
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$out/gpu.txt" 2>&1
cat .carry/COMMIT >> "$out/gpu.txt"
timeout 150 .carry/bin/kdecl_fmha_decode_gpu_tests > "$out/decode_gpu_tests.log" 2>&1
echo "decode gpu tests rc=$?" | tee -a "$out/summary.txt"
grep -E "^\[  (PASSED|FAILED) |FAILED  \]" "$out/decode_gpu_tests.log" | tee -a "$out/summary.txt"
timeout 420 benchmarks/unverified.sh conv
echo "unverified conv rc=$?" | tee -a "$out/summary.txt"
