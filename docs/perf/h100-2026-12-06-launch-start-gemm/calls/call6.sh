#!/usr/bin/env bash
# Session 57 call 6 (full build-device with the fast tile schedule): the GPU suites of every kernel that
# shares the sm_90 GEMM's schedule or split-K reduction (GEMM sm_90 suite, low precision, alignment, the
# shipped-instance test, the convolution instance and backward tests), then the 150 weakest bf16 sweep
# shapes per launch (the sweep's method) and back to back with the dependent-launch A/B, cuBLASLt in turns.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
export KDECL_BENCH_DATE=$(date -u +%Y-%m-%d) KDECL_BENCH_COMMIT=$(cat .carry/COMMIT)
t0=$(date +%s)
R=/tmp/s57c6; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s57c6; }
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; grep -E "PASSED|FAILED" $R/$name.log | head -4; }
t sm90 90 $B/kdecl_gpu_sm90_tests --gtest_brief=1
t lowp 60 $B/kdecl_gpu_sm90_lowp_tests --gtest_brief=1
t shipped 120 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*'
t alignment 40 $B/kdecl_gpu_alignment_tests --gtest_brief=1
t conv_instances 100 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvGpuInstances.*'
t conv_bwd 40 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvBwdGpu.Every*'
save
csv=docs/perf/h100-2026-12-06-dependent-launch-gemm/back_to_back/weak150_bf16.csv
l=$(( ($(left) - 20) / 2 ))
$B/kdecl bench gemm --problems $csv --dtype bf16 --layout rcr --warmup 10 --iters 50 --target-ms 100 --top 1 \
  --out $R/per_launch --label weak150_per_launch --time-budget $l > $R/per_launch.log 2>&1
echo "per-launch rc=$? after $(( $(date +%s) - t0 )) s"; tr '\r' '\n' < $R/per_launch.log | grep "^| bf16" | head -2
save
$B/kdecl bench gemm --problems $csv --dtype bf16 --layout rcr --warmup 10 --iters 50 --target-ms 100 --top 1 \
  --back-to-back --dependent-launch-ab --out $R/b2b --label weak150_b2b_ab --time-budget $(( $(left) - 15 )) \
  > $R/b2b.log 2>&1
echo "b2b rc=$? after $(( $(date +%s) - t0 )) s"; tr '\r' '\n' < $R/b2b.log | grep "^| bf16" | head -2
save
