#!/usr/bin/env bash
# Calls 2-4 (nvidia-h200-x2): the documented GEMM tuning command again, resumed from the last call's export
# (.dev/seed.jsonl.xz); calls 3 and 4 found the random problems new.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
K=$PWD/.carry/bin/kdecl
export LD_LIBRARY_PATH=$PWD/.carry/lib
nvidia-smi -L
xz -dc .dev/seed.jsonl.xz > .carry/seed_tuning_sm90.jsonl
mkdir -p /tmp/tune
TUNE_ARGS="--confirm 16 --confirm-within 0.7 --confirm-rounds 6 --target-ms 10 --iters 12" OUT=/tmp/tune \
  bash benchmarks/tuning/device_tune.sh .carry ${BUDGET:-470} gemm
cp /tmp/tune/tune.log /tmp/tune/gpu.csv $OUT/
xz -T0 -c /tmp/tune/tuning_sm90.jsonl > $OUT/tuning_sm90.jsonl.xz
grep -c '"kind":"measurement"' /tmp/tune/tuning_sm90.jsonl
grep -c 'confirmed_rounds":6' /tmp/tune/tuning_sm90.jsonl
