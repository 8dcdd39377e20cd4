#!/usr/bin/env bash
# Session 61, call 1: session 60's backward-data host-cost changes (4920802 decide() cache, cc2b48c validate()) and
# the fixed 3-D stem test on a GPU for the first time: (1) ConvDirectGpu.*, ConvBwdGpu.EveryBwdData*, DispatcherRuns*;
# (2) kdecl_launch_cost_probe conv; (3) ResNet-50 batch-1 3x3 bwd_data rows with --launch-cost; (4) every dense
# bwd_data row (--top 1) as far as the time goes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s61c1; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s61c1; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT > $R/commit.txt 2>/dev/null
t tests 160 $B/kdecl_gpu_tests --gtest_filter='ConvDirectGpu.*:ConvBwdGpu.EveryBwdData*:ConvBwdGpu.DispatcherRuns*' --gtest_brief=1
grep -E "PASSED|FAILED|Failure" $R/tests.log | head -30; save
t probe 60 $B/kdecl_launch_cost_probe conv; grep -vE "^\s*$" $R/probe.log | head -40; save
t resnet_b1 90 $B/kdecl bench conv --problems docs/perf/h100-2026-12-06-conv-narrow-3d-stem/calls/resnet_b1_3x3.csv --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label resnet_b1_3x3
grep -E "^\| bwd_data" $R/resnet_b1_3x3.md | cut -c1-220; save
left=$(( 540 - ($(date +%s) - t0) ))
if (( left > 60 )); then
  t dense $((left + 10)) $B/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget $((left - 15)) --out $R --label bwd_data_dense
  grep -E "^\| bwd_data dense" $R/bwd_data_dense.md | cut -c1-300
fi
save; echo done after $(( $(date +%s) - t0 )) s
