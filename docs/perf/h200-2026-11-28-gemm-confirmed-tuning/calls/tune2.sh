#!/usr/bin/env bash
# Call 2+: resume the GEMM retune with confirmation from the last call's export.
cd "$(dirname "$0")/.."
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
export LD_LIBRARY_PATH=$PWD/.carry/lib
mkdir -p /tmp/tune
xz -dc .dev/seed.jsonl.xz > .carry/seed_tuning_sm90.jsonl
TUNE_ARGS="--confirm 6 --iters 12" OUT=/tmp/tune bash benchmarks/tuning/device_tune.sh .carry ${BUDGET:-470} gemm
cp /tmp/tune/tune.log $OUT/tune2.log
xz -c /tmp/tune/tuning_sm90.jsonl > $OUT/tuning_sm90.jsonl.xz
grep -c 'confirmed_rounds":5' /tmp/tune/tuning_sm90.jsonl
