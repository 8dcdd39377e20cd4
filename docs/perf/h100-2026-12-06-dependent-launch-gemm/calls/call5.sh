#!/usr/bin/env bash
# Session 56 call 5: dependent launch with the trigger at each block's last unit: the pdl probe twice, the sm_90 suite.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
export LD_LIBRARY_PATH=$PWD/.carry/lib
R=$OUT/s56c5; mkdir -p $R; t0=$(date +%s)
for i in 1 2; do timeout 150 .carry/bin/kdecl_sm90_probe pdl > $R/pdl_$i.log 2>&1; echo "pdl $i rc=$? $(( $(date +%s) - t0 )) s"; done
timeout 200 .carry/bin/kdecl_gpu_sm90_tests --gtest_brief=1 > $R/sm90_tests.log 2>&1; echo "tests rc=$? $(( $(date +%s) - t0 )) s"; tail -2 $R/sm90_tests.log
