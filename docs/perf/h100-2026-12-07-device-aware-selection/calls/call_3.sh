#!/usr/bin/env bash
# Call 3 (prepared in session 69, NOT RUN: no H100 could be started in its last hour; run it with a carry of the
# current main): the 150 weakest bf16 shapes of session 56's sweep
# (docs/perf/h100-2026-12-06-dependent-launch-gemm/back_to_back/weak150_bf16.csv) per launch, --top 1, as session 57's
# call 6 timed them (0.923x cuBLASLt at 505e1a9), with the device-aware model. About 4 minutes.
set -uo pipefail
source benchmarks/call_prelude.sh s69c
export KDECL_BENCH_DATE=2026-12-07 KDECL_BENCH_COMMIT=$(cat .carryz/COMMIT)
csv=docs/perf/h100-2026-12-06-dependent-launch-gemm/back_to_back/weak150_bf16.csv
t weak150 330 $B/kdecl bench gemm --problems $csv --dtype bf16 --layout rcr --warmup 10 --iters 50 --target-ms 100 --top 1 \
  --out $R/per_launch --label weak150_per_launch --time-budget 315
save
