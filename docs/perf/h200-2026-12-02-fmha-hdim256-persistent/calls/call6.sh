#!/usr/bin/env bash
# Session 41, call 6 (one H200): the full device build of the final tree: the shipped GEMM instances
# (column-major C on tma_wgmma now shipped) and every attention test; column-major C against cuBLASLt.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r6; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run gpu_tests 170 $B/kdecl_gpu_tests --gtest_brief=1
run fmha_tests 80 $B/kdecl_fmha_gpu_tests --gtest_brief=1
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|Failure" $f | head -8; done
for lay in rcr rcc ccc crc rrc; do
  timeout 25 $B/kdecl bench gemm --ms 4096 1024 --ns 4096 8192 --ks 4096 --layout $lay --dtype bf16 --warmup 5 --iters 30 --top 2 \
    --out $R/colc --label gemm_bf16_$lay > $R/colc_$lay.txt 2>&1
  echo "== $lay"; grep -E "^\| [0-9]" $R/colc/gemm_bf16_$lay.md | head -5
done
tar -C /tmp -cJf $OUT/results.tar.xz r6
