#!/usr/bin/env bash
# Session 65, call E: the fp16 GEMM sweep (702 shapes, benchmarks/shapes/gemm_*.csv) on today's kernels and model,
# per launch with --top 1 (the bf16 record's method, session 57), cuBLASLt in turns. Its last whole run was
# session 56's (ad2aa72), before the sm_90 GEMM's fast tile scheduler and dependent launch of short GEMMs.
set -uo pipefail
t0=$(date +%s)
SWEEP_BUDGET=${SWEEP_BUDGET:-530} SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" \
  bash benchmarks/sweep.sh fp16 > $OUT/sweep.log 2>&1
echo "sweep rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| fp16|^== |geomean|worst" $OUT/sweep.log | head; tail -3 $OUT/sweep.log
