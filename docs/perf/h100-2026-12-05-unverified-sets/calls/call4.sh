#!/usr/bin/env bash
# 2026-12-05 call 4: the fused-epilogue convolutions store through the GEMM's TMA-store epilogue now
# (bias and residual read from global memory in its chunk loop): benchmarks/unverified.sh conv again
# (GPU tests, memcheck of each fused sm_90 kernel, ResNet-50 forward with bias + relu against cuDNN's
# fused graph), the GEMM alignment tests with the block-scaled set registered, and which block-scale modes
# cuBLASLt takes here (a probe built on that machine). One archive back.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
work=$(mktemp -d)
OUT=$work timeout 240 benchmarks/unverified.sh conv > "$work/unverified_conv.log" 2>&1
echo "unverified conv rc=$?" >> "$work/summary.txt"
tar -C "$work" -czf "$out/call4.tgz" .  # again after each step: a call cut short keeps what it did
# Which block-scale mode pairs this machine's cuBLASLt takes (call 3: its heuristic refused our mapping).
here=docs/perf/h100-2026-12-05-unverified-sets/calls
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -O1 -I"$cuda/include" "$here/cublas_block_scale_probe.cpp" -L"$cuda/lib64" -lcublasLt -lcudart \
    -o "$work/cublas_block_scale_probe" > "$work/probe_build.log" 2>&1 && "$work/cublas_block_scale_probe" > "$work/cublas_block_scale_probe.log" 2>&1
echo "cublas probe rc=$?" >> "$work/summary.txt"
# The same layers without a fusion, on the same GPU (the machine may differ from call 3's).
timeout 100 .carry/bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
    --device cuda --out "$work/bench_conv_plain" > "$work/bench_conv_plain.log" 2>&1
echo "conv plain bench rc=$?" >> "$work/summary.txt"
nvidia-smi --query-gpu=name --format=csv,noheader >> "$work/summary.txt"
tar -C "$work" -czf "$out/call4.tgz" .
if [[ ${WITH_ALIGNMENT:-0} == 1 && -x .carry/bin/kdecl_gpu_alignment_tests ]]; then
  timeout 120 .carry/bin/kdecl_gpu_alignment_tests > "$work/alignment_gpu_tests.log" 2>&1
  echo "alignment gpu tests rc=$?" >> "$work/summary.txt"
fi
tar -C "$work" -czf "$out/call4.tgz" .
cat "$work/summary.txt"
