#!/usr/bin/env bash
# Session 55, call A (one GPU): retune the sm_90 GEMM on the models' layers in rcr with the 128 x 160
# tiles registered (instances/gemm_sm90_tma_mid_n.cpp moved up; build-tune: every GEMM set, nothing else),
# bf16 then fp16 (.dev/tune/rcr_*.csv from rcr_problems.py), the documented tuning options, into a fresh
# database (resumed from .dev/tune/seed.jsonl.xz when a later call carries one); then, in what is left,
# the host cost of a launch on small shapes (kdecl bench --launch-cost). One archive comes back.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s55cA; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s55cA; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
cat $R/gpu.csv; $B/kdecl list --filter arch=sm_90 | tail -n 1 | tee -a $R/gpu.csv
db=$R/tuning_sm90_rcr.db
[[ -f .dev/tune/seed.jsonl.xz ]] && xz -dkf .dev/tune/seed.jsonl.xz
[[ -f .dev/tune/seed.jsonl ]] && $B/kdecl tune --db $db --import .dev/tune/seed.jsonl > /dev/null
$B/kdecl tune gemm --problems .dev/tune/rcr_bf16.csv .dev/tune/rcr_fp16.csv --db $db --commit "$(cat .carry/COMMIT)" \
  --confirm 16 --confirm-within 0.7 --confirm-rounds 6 --target-ms 10 --iters 12 --time-budget ${TUNE_BUDGET:-450} 2>&1 \
  | tr '\r' '\n' > $R/tune.log
echo "tune rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s"; grep -E "^tune gemm:" $R/tune.log | tail -n 2
$B/kdecl tune --db $db --export $R/tuning_sm90_rcr.jsonl > /dev/null
xz -T0 $R/tuning_sm90_rcr.jsonl; rm -f $db*
save
left=$(( ${BUDGET:-580} - ($(date +%s) - t0) ))
if (( left > 25 )); then
  timeout $((left - 5)) $B/kdecl bench gemm --problems .dev/small_shapes.csv --dtype bf16 --layout rcr --top 1 --launch-cost \
    --out $R/launch_cost --label small --warmup 10 --iters 50 > $R/launch_cost.log 2>&1
  echo "launch cost rc=$? after $(( $(date +%s) - t0 )) s"
  save
fi
left=$(( ${BUDGET:-580} - ($(date +%s) - t0) ))
if (( left > 25 )); then  # which kernel is fastest on this GPU where the H100 sweep's pingpong 128 x 128 picks were slow
  timeout $((left - 5)) $B/kdecl bench gemm --problems .dev/big_shapes.csv --dtype bf16 --layout rcr --top 8 \
    --out $R/big --label big --warmup 5 --iters 20 > $R/big.log 2>&1
  echo "big shapes rc=$? after $(( $(date +%s) - t0 )) s"
  save
fi
