#!/usr/bin/env bash
# Call 1 (session 69, kdecl at the commit in commit.txt, models/ of the same tree): the sweep shapes whose
# choice the shipped GEMM model changes (93 bf16 and 93 fp16 of the 702, calls/changed_*.csv: offline
# choices of `kdecl select --device sm_90` against the last sweeps' jsonl), timed as the sweep times them
# (benchmarks/sweep.sh's options: the dispatcher's choice, the first six of its ranking and cuBLASLt in turns);
# and `kdecl select` on the GPU itself, to see the device's memory clock reach the model. About 4 minutes.
set -uo pipefail
source benchmarks/call_prelude.sh s69
D=docs/perf/h100-2026-12-07-device-aware-selection/calls
export KDECL_BENCH_DATE=2026-12-07 KDECL_BENCH_COMMIT=$(cat .carryz/COMMIT)
t select 30 $B/kdecl select gemm --m 512 --n 1024 --k 4096 --dtype bf16 --explain
save
for dt in bf16 fp16; do
  t gemm_$dt 230 $B/kdecl bench gemm --problems $D/changed_$dt.csv --dtype $dt --layout rcr --warmup 10 --iters 50 \
    --target-ms 100 --top 6 --out $R/gemm --label changed_$dt --time-budget 210
  save
done
