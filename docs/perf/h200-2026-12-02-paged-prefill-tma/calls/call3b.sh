#!/usr/bin/env bash
# Session 43, call 3b (one H200; build-fmha binaries with an A/B set): the forward kernel at head dim 64 with
# a 4-stage K/V ring against the shipped 2 stages, on the bf16 shape lists' head-dim-64 rows without modifiers.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c3b; mkdir -p $R
timeout 100 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryTmaWgmmaInstanceMatchesTheReference' > $R/tests.log 2>&1
echo "tests rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "FAILED|PASSED" $R/tests.log | head
for s in s2 s4; do
  timeout 150 $B/kdecl bench fmha --problems benchmarks/shapes/fmha_*.csv --dtype bf16 --where 'd=64' \
    --kernels "name~_${s}_,name~h64x64,name~bias-none" --warmup 3 --iters 20 --target-ms 40 --top 1 \
    --out $R/d64_$s --label d64_$s > $R/d64_$s.log 2>&1
  echo "d64 $s rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\|" $R/d64_$s.log | head -12
done
tar -C /tmp -cJf $OUT/results.tar.xz s43c3b
