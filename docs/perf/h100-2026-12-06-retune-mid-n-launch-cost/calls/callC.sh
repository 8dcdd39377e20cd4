#!/usr/bin/env bash
# Session 55, call C (one GPU): the working tree's GEMM (128 x 160 tiles shipped, the model retrained on call A+B's
# H100 rcr retune, a launch's device lookup cached per context): the launch-cost probe again, three answers
# checked against the host reference, then the public sweep against cuBLASLt (bf16, then fp16 in what is left;
# benchmarks/sweep.sh, --top 1), resumed from .dev/sweep-seed/ when a later call carries it.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s55cC; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s55cC; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv; cat $R/gpu.csv
if [[ -z ${SKIP_PROBE:-} ]]; then
  timeout 60 $B/kdecl_launch_cost_probe 16 768 768 32 1000 768 128 1024 1024 128 2048 2048 1 4096 4096 > $R/launch_cost_probe.log 2>&1
  echo "probe rc=$?"; cat $R/launch_cost_probe.log
  for s in "1001 1003 999" "32 1000 768" "1576 3072 1024" "2048 11008 2048"; do
    read -r m n k <<< "$s"
    for dt in bf16 fp16; do
      timeout 60 $B/kdecl run gemm --m $m --n $n --k $k --dtype $dt --device cuda 2>&1 | tail -n 2 | sed "s/^/$dt $m x $n x $k: /" >> $R/checks.log
    done
  done
  cat $R/checks.log
  save
fi
left=$(( ${BUDGET:-575} - ($(date +%s) - t0) ))
SWEEP_BUDGET=$left SWEEP_DIR=/tmp/s55_sweep SWEEP_SEED=.dev/sweep-seed OUT=$R \
  SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh all > $R/sweep.log 2>&1
echo "sweep rc=$? after $(( $(date +%s) - t0 )) s"
grep -E "^== |geometric|refused" $R/sweep.log | head -20
for f in $R/sweep/*.jsonl; do xz -k -T0 $f; done
save
