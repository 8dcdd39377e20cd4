#!/usr/bin/env bash
# Session 40, call C (one H200): the sm_90 GEMM suite, then the dense forward and backward-weight
# convolutions against cuDNN after the conv TMA-store change (bench_ops.sh, --top 2), then the rest
# of call A's retune (resumed from its export, .dev/tune/seed.jsonl).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r; mkdir -p $R
timeout 70 $B/kdecl_gpu_sm90_tests --gtest_brief=1 > $R/sm90_tests.log 2>&1; echo "sm90 tests rc=$?" >> $R/sm90_tests.log
grep -E "FAILED|PASSED|rc=" $R/sm90_tests.log | head
BENCH_BUDGET=270 BENCH_DIR=/tmp/bo OUT=$R BENCH_DIRECTIONS=fwd,bwd_weight BENCH_CONV_FILTER='class=dense' \
  BENCH_TIMING="--warmup 5 --iters 30 --target-ms 60 --top 2" bash benchmarks/bench_ops.sh conv > $R/bench_conv.log 2>&1
grep -E "^== |^fwd|^bwd" $R/bench_conv.log | head
left=$(( ${BUDGET:-530} - ($(date +%s) - t0) ))
echo "tune budget $left"
if (( left > 30 )); then
  R=/tmp/r/tuneC NO_TAR=1 TUNE_BUDGET=$((left - 15)) BUDGET=0 bash .dev/calls/callA.sh > $R/tuneC.log 2>&1
fi
tail -n 4 $R/tuneC.log
tar -C /tmp -cJf $OUT/results.tar.xz r
