#!/usr/bin/env bash
# Session 56 call 3: programmatic dependent launch of the sm_90 GEMM, A/B in separate processes
# (KDECL_DEPENDENT_LAUNCH=0 is the old launch), the probe's few-tile and short-K shapes; the sm_90 GEMM suite.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s56c3; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s56c3; }
for mode in splits shortk; do
  KDECL_DEPENDENT_LAUNCH=0 timeout 150 $B/kdecl_sm90_probe $mode > $R/${mode}_off.log 2>&1; echo "$mode off rc=$? $(( $(date +%s) - t0 )) s"
  timeout 150 $B/kdecl_sm90_probe $mode > $R/${mode}_on.log 2>&1; echo "$mode on rc=$? $(( $(date +%s) - t0 )) s"
  save
done
timeout $(( 560 - ($(date +%s) - t0) )) $B/kdecl_gpu_sm90_tests --gtest_brief=1 > $R/sm90_tests.log 2>&1
echo "sm90 tests rc=$? $(( $(date +%s) - t0 )) s"; tail -4 $R/sm90_tests.log
save
