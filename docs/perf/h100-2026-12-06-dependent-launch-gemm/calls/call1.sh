#!/usr/bin/env bash
# Prepared in session 55 for the next GPU call (build-device full build at HEAD, carried with
# `benchmarks/carry.sh build-device` -> .carryz): (1) finish the fp16 sweep from session 55's 176 shapes
# (.dev/next/sweep_fp16_rcr.jsonl.xz), (2) the GPU suites never run whole: GemvGpu.*, ConvGpuInstances.*,
# ConvBwdGpu.Every*, kdecl_gpu_alignment_tests, each under a timeout, in what is left. One archive back.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/next1; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz next1; }
left() { echo $(( ${BUDGET:-575} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv; cat $R/gpu.csv
mkdir -p .dev/next/seed && xz -dkc .dev/next/sweep_fp16_rcr.jsonl.xz > .dev/next/seed/sweep_fp16_rcr.jsonl
SWEEP_BUDGET=${SWEEP_BUDGET:-360} SWEEP_DIR=/tmp/next_sweep SWEEP_SEED=.dev/next/seed OUT=$R \
  SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh fp16 > $R/sweep.log 2>&1
echo "sweep rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| fp16|^== " $R/sweep.log | head
for f in $R/sweep/*.jsonl; do xz -kf -T0 $f; done
save
run() { local name=$1; shift; local l=$(left); ((l > 20)) || return; timeout $((l - 10)) "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; save; }
run gemv $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='GemvGpu.*'
run alignment $B/kdecl_gpu_alignment_tests --gtest_brief=1
run conv_instances $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvGpuInstances.*'
run conv_bwd_every $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvBwdGpu.Every*'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=" $f | head -5; done
