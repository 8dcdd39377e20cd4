#!/usr/bin/env bash
# Call 2 (session 69, the carry of call 1): on the shapes whose choice moved most in call 1 (calls/movers.csv),
# every eligible registered instance and cuBLASLt timed in turns (--top 0), bf16 and fp16: whether the
# previous choice or the new one is faster, measured side by side rather than across sessions. About 4 minutes.
set -uo pipefail
source benchmarks/call_prelude.sh s69b
D=docs/perf/h100-2026-12-07-device-aware-selection/calls
export KDECL_BENCH_DATE=2026-12-07 KDECL_BENCH_COMMIT=$(cat .carryz/COMMIT)
for dt in bf16 fp16; do
  t top0_$dt 200 $B/kdecl bench gemm --problems $D/movers.csv --dtype $dt --layout rcr --warmup 10 --iters 50 \
    --target-ms 100 --top 0 --out $R/gemm --label movers_$dt --time-budget 185
  save
done
