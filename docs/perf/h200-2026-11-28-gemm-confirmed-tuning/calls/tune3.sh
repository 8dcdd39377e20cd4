#!/usr/bin/env bash
# Call 3: the confirmation method on five hard problems (first pass alone vs with --confirm),
# then every problem confirmed again (6 rounds, up to 10 kernels within 0.75 of the fastest).
cd "$(dirname "$0")/.."
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
K=$PWD/.carry/bin/kdecl
export LD_LIBRARY_PATH=$PWD/.carry/lib
rm -rf /tmp/exp && mkdir -p /tmp/exp
$K tune gemm --problems .dev/exp.csv --db /tmp/exp/a.db --iters 12 2>/dev/null | tail -1
$K tune gemm --problems .dev/exp.csv --db /tmp/exp/b.db --iters 12 --confirm 10 --target-ms 10 --confirm-rounds 6 2>/dev/null | tail -1
$K tune gemm --problems .dev/exp.csv --db /tmp/exp/c.db --iters 12 --confirm 10 --target-ms 10 --confirm-rounds 6 2>/dev/null | tail -1
for d in a b c; do $K tune --db /tmp/exp/$d.db --export $OUT/exp_$d.jsonl > /dev/null; done
rm -rf /tmp/tune && mkdir -p /tmp/tune
xz -dc .dev/seed.jsonl.xz > .carry/seed_tuning_sm90.jsonl
TUNE_ARGS="--confirm 10 --confirm-rounds 6 --target-ms 10 --iters 12" OUT=/tmp/tune bash benchmarks/tuning/device_tune.sh .carry ${BUDGET:-420} gemm
cp /tmp/tune/tune.log $OUT/tune3.log
xz -c /tmp/tune/tuning_sm90.jsonl > $OUT/tuning_sm90.jsonl.xz
grep -c 'confirmed_rounds":6' /tmp/tune/tuning_sm90.jsonl
