#!/usr/bin/env bash
# Session 41, call 4 (one H200): `kdecl bench fmha` against cuDNN over benchmarks/shapes/fmha_*.csv (bf16),
# with the model retrained on call 3's data.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
R=/tmp/r4; mkdir -p $R
BENCH_BUDGET=${BUDGET:-540} BENCH_DIR=/tmp/bf4 OUT=$R BENCH_DTYPES=bf16 \
  BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_fmha.log 2>&1
echo "bench rc=$?"; tail -n 5 $R/bench_fmha.log
sed -n '/| group/,/^$/p' $R/bench_ops/fmha_bf16.md
tar -C /tmp -cJf $OUT/results.tar.xz r4
