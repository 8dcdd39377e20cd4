#!/usr/bin/env bash
# Session 41, call 3 (one H200): every attention GPU test after the tanh.approx soft-cap and the grid
# choice (persistent for unmasked batch problems), then `kdecl tune fmha` over benchmarks/shapes/fmha_*.csv
# (bf16 and fp16) for the shipped model.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r3; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 200 $B/kdecl_fmha_gpu_tests --gtest_brief=1
grep -E "FAILED|PASSED|Failure" $R/fmha_tests.log | head -12
left=$(( ${BUDGET:-575} - ($(date +%s) - t0) ))
OUT=$R/tune bash benchmarks/tuning/device_tune.sh .carry $((left - 10)) fmha > $R/tune_stdout.log 2>&1
tail -n 4 $R/tune_stdout.log; tail -n 3 $R/tune/tune.log
tar -C /tmp -cJf $OUT/results.tar.xz r3
