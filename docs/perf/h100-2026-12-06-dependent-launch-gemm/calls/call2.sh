#!/usr/bin/env bash
# Session 56 call 2: GemmSm90.ForcedSplitsAreTheSameGemm, the forced-split probe (sm90_probe splits), then the
# rest of the fp16 sweep from call 1's 485 shapes. One archive back, saved after each step.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s56c2; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s56c2; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
timeout 120 $B/kdecl_gpu_sm90_tests --gtest_brief=1 --gtest_filter='GemmSm90.ForcedSplits*:GemmSm90.SplitK*' > $R/forced_test.log 2>&1
echo "forced test rc=$? after $(( $(date +%s) - t0 )) s"; tail -3 $R/forced_test.log; save
timeout 240 $B/kdecl_sm90_probe splits > $R/splits.log 2>&1
echo "probe rc=$? after $(( $(date +%s) - t0 )) s"; save
mkdir -p .dev/s56/seed && xz -dkf .dev/s56/seed/sweep_fp16_rcr.jsonl.xz
left=$(( ${BUDGET:-560} - ($(date +%s) - t0) ))
SWEEP_BUDGET=$((left - 25)) SWEEP_DIR=/tmp/s56_sweep SWEEP_SEED=.dev/s56/seed OUT=$R \
  SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh fp16 > $R/sweep.log 2>&1
echo "sweep rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "^\| fp16|^== " $R/sweep.log | head
for f in $R/sweep/*.jsonl; do xz -kf -T0 $f; done
save
