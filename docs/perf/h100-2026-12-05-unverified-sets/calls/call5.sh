#!/usr/bin/env bash
# 2026-12-05 call 5: call 4 cut to what the session's last device minutes hold: the fused convolutions'
# GPU tests (now storing through TMA) and ResNet-50's forward layers with bias + relu against cuDNN's fused graph.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
nvidia-smi --query-gpu=name --format=csv,noheader > "$out/summary.txt"
timeout 70 .carry/bin/kdecl_gpu_tests --gtest_filter='ConvGpuInstances.*' > "$out/conv_gpu_tests.log" 2>&1
echo "conv gpu tests rc=$?" >> "$out/summary.txt"
grep -E "runs checked|PASSED|FAILED" "$out/conv_gpu_tests.log" >> "$out/summary.txt"
timeout 70 .carry/bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
    --bias --activation relu --device cuda --out "$out/fused" > "$out/bench_conv_fused.log" 2>&1
echo "fused bench rc=$?" >> "$out/summary.txt"
tail -n 6 "$out/bench_conv_fused.log" >> "$out/summary.txt"
rm -f "$out/fused/"*.json "$out/fused/"*.png
cat "$out/summary.txt"
