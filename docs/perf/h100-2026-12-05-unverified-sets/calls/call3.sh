#!/usr/bin/env bash
# 2026-12-05 call 3: benchmarks/unverified.sh gemm again (call 2 gave its memcheck a K of 1000, whose
# 1000-byte fp8 rows TMA cannot stride, and its bench a malformed --sizes), and its conv bench again
# (call 1's per-shape files did not come back: the device tool returns a limited number of files,
# so everything goes into one archive now), and the same layers without the epilogue for comparison.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
work=$(mktemp -d)
OUT=$work timeout 300 benchmarks/unverified.sh gemm > "$work/unverified_gemm.log" 2>&1
echo "unverified gemm rc=$?" >> "$work/summary.txt"
timeout 240 .carry/bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
    --bias --activation relu --device cuda --out "$work/bench_conv_fused" > "$work/bench_conv_fused.log" 2>&1
echo "conv fused bench rc=$?" >> "$work/summary.txt"
timeout 200 .carry/bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
    --device cuda --out "$work/bench_conv_plain" > "$work/bench_conv_plain.log" 2>&1
echo "conv plain bench rc=$?" >> "$work/summary.txt"
tar -C "$work" -czf "$out/call3.tgz" .
cat "$work/summary.txt"
