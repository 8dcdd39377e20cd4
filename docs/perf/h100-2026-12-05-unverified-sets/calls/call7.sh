#!/usr/bin/env bash
# 2026-12-05, second session, call 7 (call 6 cut to about five minutes of device time: fewer memchecks,
# no plain-convolution bench, no block-scaled bench): what the first session could not run. (1) The block-scaled fp8
# GEMM with its new cp_async kernels (rows that are not 16-byte multiples) beside the TMA ones: every
# kernel against the host reference, random misaligned problems, memcheck at K = 1000 / 1004 / 999
# (8-, 4-, 1-byte rows). (2) The fused-epilogue convolutions storing through the TMA-store epilogue:
# their GPU tests, memcheck of two fused sm_90 kernels, ResNet-50 forward with bias + relu against
# cuDNN's fused graph and without a fusion against cuDNN. (3) Which block-scale modes cuBLASLt takes.
# Build: build-conv (device preset, KDECL_UNVERIFIED_SETS=ON, filter
# 'conv_|gemm_.*block_scaled|fmha_paged\.cpp|fmha_host|gemm_host'); carry:
#   benchmarks/carry.sh build-conv tools/kdecl tests/kdecl_gpu_tests tests/kdecl_gpu_alignment_tests
# One archive back (call7.tgz), rewritten after each step so a call cut short keeps what it did.
set -uo pipefail
cd "$(dirname "$0")/../../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/call7.tgz" .; }
say() { echo "$*" | tee -a "$work/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader > "$work/summary.txt"
cat .carry/COMMIT >> "$work/summary.txt"

# (1) block-scaled GEMM
timeout 90 $bin/kdecl_gpu_tests --gtest_filter='ShippedGpuInstances.MatchTheHostReference' > "$work/gemm_gpu_tests.log" 2>&1
say "block-scaled MatchTheHostReference rc=$?"; grep -E "runs checked|PASSED|FAILED|error" "$work/gemm_gpu_tests.log" | head -20 >> "$work/summary.txt"
timeout 90 $bin/kdecl_gpu_alignment_tests --gtest_filter='AlignmentGpu.*' > "$work/alignment_gpu_tests.log" 2>&1
say "alignment gpu tests rc=$?"; grep -E "PASSED|FAILED|kernels" "$work/alignment_gpu_tests.log" | head -20 >> "$work/summary.txt"
for k in 1000 999; do
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin/kdecl run gemm --dtype fp8 --block-scaled --m 1001 --n 200 \
      --k $k --batch 2 --device cuda > "$work/memcheck_block_scaled_k$k.log" 2>&1
  say "memcheck block-scaled K=$k rc=$?"; grep -E "kernel|PASS|FAIL|ERROR SUMMARY" "$work/memcheck_block_scaled_k$k.log" | head -4 >> "$work/summary.txt"
done
save

# (2) fused convolutions through the TMA-store epilogue
timeout 150 $bin/kdecl_gpu_tests --gtest_filter='ConvGpuInstances.*' > "$work/conv_gpu_tests.log" 2>&1
say "ConvGpuInstances rc=$?"; grep -E "ComposedEpilogues|runs checked|PASSED|FAILED" "$work/conv_gpu_tests.log" | head -20 >> "$work/summary.txt"
for kernel in $($bin/kdecl list 2>/dev/null | grep -o 'conv_fwd_2d_bf16_nhwgc_[a-z0-9_]*fused-bias-residual-relu_[a-z_0-9x]*_sm_90' | head -1); do
  compute-sanitizer --tool memcheck --error-exitcode 9 $bin/kdecl run conv --n 3 --c 64 --k 128 --hw 19,23 --filter 3 \
      --pad 1 --dtype bf16 --bias --residual --activation relu --device cuda --kernel "$kernel" > "$work/memcheck_$kernel.log" 2>&1
  say "memcheck $kernel rc=$?"; grep -E "PASS|FAIL|ERROR SUMMARY" "$work/memcheck_$kernel.log" | head -3 >> "$work/summary.txt"
done
save
timeout 90 $bin/kdecl bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
    --bias --activation relu --device cuda --out "$work/bench_conv_fused" > "$work/bench_conv_fused.log" 2>&1
say "fused bench rc=$?"; tail -n 8 "$work/bench_conv_fused.log" >> "$work/summary.txt"
save

# (3) which block-scale modes cuBLASLt takes here
here=docs/perf/h100-2026-12-05-unverified-sets/calls
cuda=${CUDA_HOME:-/usr/local/cuda}
g++ -O1 -I"$cuda/include" "$here/cublas_block_scale_probe.cpp" -L"$cuda/lib64" -lcublasLt -lcudart \
    -o "$work/probe" > "$work/probe_build.log" 2>&1 && timeout 60 "$work/probe" > "$work/cublas_block_scale_probe.log" 2>&1
say "cublas probe rc=$?"; head -30 "$work/cublas_block_scale_probe.log" >> "$work/summary.txt"
rm -f "$work/probe"
save
cat "$work/summary.txt"
