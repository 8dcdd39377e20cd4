#!/usr/bin/env bash
# 2026-12-05, second session, call 8: sm_90 convolutions launched as programmatic dependents of their
# pre-passes (the backward-data's flipped weights, zeroed pixels, padded channel copies, merged-group
# weights: kernels/cuda/sm90/dependent_launch.cuh). (1) The convolution GPU suites with it; (2) ResNet-50's
# dense backward-data layers timed with it off (KDECL_DEPENDENT_LAUNCH=0) and on, cuDNN in turns in both;
# (3) the block-scaled GEMM against cuBLASLt with the baseline's scale-pointer fix.
# Build: build-conv at the commit named in .carry/COMMIT plus the dependent-launch change; carry:
#   benchmarks/carry.sh build-conv tools/kdecl tests/kdecl_gpu_tests
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/call8.tgz" .; }
say() { echo "$*" | tee -a "$work/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$work/summary.txt"
cat .carry/COMMIT >> "$work/summary.txt"
timeout 150 $bin/kdecl_gpu_tests --gtest_filter='ConvGpuInstances.*:ConvBwdGpu.*' > "$work/conv_gpu_tests.log" 2>&1
say "conv gpu tests rc=$?"; grep -E "runs checked|PASSED|FAILED|kernels for" "$work/conv_gpu_tests.log" | head -20 >> "$work/summary.txt"
save
for dep in 0 1; do
  KDECL_DEPENDENT_LAUNCH=$dep timeout 100 $bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv \
      --directions bwd_data --dtype bf16 --where class=dense --device cuda --out "$work/bwd_data_dependent$dep" \
      > "$work/bwd_data_dependent$dep.log" 2>&1
  say "bwd_data bench, KDECL_DEPENDENT_LAUNCH=$dep: rc=$?"; tail -n 5 "$work/bwd_data_dependent$dep.log" >> "$work/summary.txt"
  rm -f "$work/bwd_data_dependent$dep/"*.png "$work/bwd_data_dependent$dep/"*.json
  save
done
timeout 60 $bin/kdecl bench gemm --sizes 4096 8192 --dtype fp8 --block-scaled --device cuda > "$work/bench_block_scaled.log" 2>&1
say "block-scaled bench rc=$?"; tail -n 8 "$work/bench_block_scaled.log" >> "$work/summary.txt"
save
cat "$work/summary.txt"
