#!/usr/bin/env bash
# Session 55, call B (one GPU): the host cost of a launch piece by piece (kdecl_launch_cost_probe),
# then call A's retune resumed from its export (.dev/tune/seed.jsonl.xz) to the end.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s55cB; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s55cB; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv; cat $R/gpu.csv
timeout 60 $B/kdecl_launch_cost_probe 16 768 768 32 1000 768 128 1024 1024 128 2048 2048 1 4096 4096 > $R/launch_cost_probe.log 2>&1
echo "probe rc=$?"; cat $R/launch_cost_probe.log
save
db=$R/tuning_sm90_rcr.db
xz -dkf .dev/tune/seed.jsonl.xz && $B/kdecl tune --db $db --import .dev/tune/seed.jsonl > /dev/null
$B/kdecl tune gemm --problems .dev/tune/rcr_bf16.csv .dev/tune/rcr_fp16.csv --db $db --commit "$(cat .carry/COMMIT)" \
  --confirm 16 --confirm-within 0.7 --confirm-rounds 6 --target-ms 10 --iters 12 --time-budget ${TUNE_BUDGET:-480} 2>&1 \
  | tr '\r' '\n' > $R/tune.log
echo "tune rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s"; grep -E "^tune gemm:" $R/tune.log | tail -n 2
$B/kdecl tune --db $db --export $R/tuning_sm90_rcr.jsonl > /dev/null
xz -T0 $R/tuning_sm90_rcr.jsonl; rm -f $db*
save
