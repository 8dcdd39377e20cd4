#!/usr/bin/env bash
# Session 40, call B (one H200): the bf16 sweep of the models' GEMM shapes against cuBLASLt with
# the retrained model (--top 1: the dispatcher's choice against cuBLASLt in turns), in the budget.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
R=/tmp/r; mkdir -p $R
dt=${SWEEP_DTYPE:-bf16}
SWEEP_BUDGET=${BUDGET:-545} SWEEP_DIR=/tmp/s_$dt SWEEP_SEED=${SEED:-sweep-results} OUT=/tmp/o_$dt \
  SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh $dt > $R/sweep_$dt.log 2>&1
grep -E "^== |geometric|refused|\| $dt" $R/sweep_$dt.log | head -12
cp -r /tmp/o_$dt/sweep $R/ 2>/dev/null
tar -C /tmp -cJf $OUT/results.tar.xz r
