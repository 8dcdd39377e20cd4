#!/usr/bin/env bash
# Session 39, call A (one H200): the sm_90 GEMM test suites and compute-sanitizer on the new paths,
# then the bf16 sweep against cuBLASLt (--top 1) in what is left of the budget.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib
nvidia-smi -L
O=$OUT
t0=$(date +%s)
if [[ -z "${SKIP_TESTS:-}" ]]; then
  timeout 200 $B/kdecl_gpu_sm90_tests --gtest_brief=1 > $O/sm90_tests.log 2>&1; echo "sm90 tests rc=$?" >> $O/sm90_tests.log
  timeout 100 $B/kdecl_gpu_sm90_lowp_tests --gtest_brief=1 > $O/lowp_tests.log 2>&1; echo "lowp tests rc=$?" >> $O/lowp_tests.log
  timeout 100 $B/kdecl_gpu_alignment_tests --gtest_brief=1 > $O/alignment_tests.log 2>&1; echo "alignment rc=$?" >> $O/alignment_tests.log
  KDECL_MODEL_DIR=$PWD/models timeout 150 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*Gemm*:ShippedGpuInstances.*gemm*' > $O/gpu_tests.log 2>&1; echo "gpu tests rc=$?" >> $O/gpu_tests.log
  for t in "memcheck:GemmSm90TmaStore.BothPathsMatchReference" "memcheck:GemmSm90SplitTail.MatchesReference" \
           "racecheck:GemmSm90SplitTail.MatchesReference" "synccheck:GemmSm90TmaStore.BothPathsMatchReference"; do
    tool=${t%%:*}; f=${t#*:}
    timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/kdecl_gpu_sm90_tests --gtest_brief=1 --gtest_filter=$f > /tmp/san.txt 2>&1
    echo "$tool $f rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' /tmp/san.txt | head -2 | tr '\n' ' ')" >> $O/sanitizer.txt
  done
  cat $O/sanitizer.txt; tail -3 $O/*_tests.log
fi
left=$(( ${BUDGET:-540} - ($(date +%s) - t0) ))
echo "sweep budget $left s"
if (( left > 60 )); then
  SWEEP_BUDGET=$left SWEEP_DIR=/tmp/s_bf16 SWEEP_SEED=${SEED:-sweep-results} OUT=/tmp/o_bf16 \
    SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh bf16 > /tmp/sweep_bf16.log 2>&1
  grep -E "^== |geometric|refused" /tmp/sweep_bf16.log | head -12
  mkdir -p $O/sweep && cp /tmp/o_bf16/sweep/* $O/sweep/ 2>/dev/null
  ls $O/sweep
fi
