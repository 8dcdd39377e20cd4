#!/usr/bin/env bash
# Session 39, call B (one H200): the GPU suites again after the 16-byte row fix, then the fp16 sweep
# (--top 1) in what is left of the budget. Everything comes back as one archive plus a log.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib
t0=$(date +%s)
R=/tmp/r; mkdir -p $R
timeout 150 $B/kdecl_gpu_sm90_tests --gtest_brief=1 > $R/sm90_tests.log 2>&1; echo "sm90 tests rc=$?" >> $R/sm90_tests.log
timeout 100 $B/kdecl_gpu_sm90_lowp_tests --gtest_brief=1 > $R/lowp_tests.log 2>&1; echo "lowp tests rc=$?" >> $R/lowp_tests.log
timeout 100 $B/kdecl_gpu_alignment_tests --gtest_brief=1 > $R/alignment_tests.log 2>&1; echo "alignment rc=$?" >> $R/alignment_tests.log
KDECL_MODEL_DIR=$PWD/models timeout 200 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*' > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" >> $R/gpu_tests.log
for t in "memcheck:GemmSm90TmaStore.*" "memcheck:GemmSm90SplitTail.MatchesReference"; do
  tool=${t%%:*}; f=${t#*:}
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/kdecl_gpu_sm90_tests --gtest_brief=1 --gtest_filter=$f > /tmp/san.txt 2>&1
  echo "$tool $f rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.txt | head -2 | tr '\n' ' ')" >> $R/sanitizer.txt
done
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=" $f | head -20; done
cat $R/sanitizer.txt
left=$(( ${BUDGET:-540} - ($(date +%s) - t0) ))
echo "sweep budget $left s"
if (( left > 60 )); then
  SWEEP_BUDGET=$left SWEEP_DIR=/tmp/s_fp16 OUT=/tmp/o_fp16 \
    SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh fp16 > $R/sweep_fp16.log 2>&1
  grep -E "^== |geometric|refused|\| fp16" $R/sweep_fp16.log | head -12
  cp -r /tmp/o_fp16/sweep $R/ 2>/dev/null
fi
tar -C /tmp -cJf $OUT/results.tar.xz r
