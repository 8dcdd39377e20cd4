#!/usr/bin/env bash
# Session 43, call 6 (one H200; full build at 6a7a2cd): the fp16 attention shape lists against cuDNN (the
# session before timed 34 of them before its budget ran out). BUDGET: seconds (default 240).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
R=/tmp/s43c6; mkdir -p $R
BENCH_BUDGET=${BUDGET:-240} BENCH_DIR=/tmp/bf_fp16 OUT=$R/fp16 BENCH_DTYPES=fp16 \
  BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_fp16.log 2>&1
echo "bench fp16 rc=$?"
grep -E "^\| (all|fp16 d)" $R/fp16/bench_ops/fmha_fp16.md | awk -F'|' '{print $2,"|",$3,"|",$4,"|",$5,"|",$6}'
tar -C /tmp -cJf $OUT/results.tar.xz s43c6
