#!/usr/bin/env bash
# Session 57, call 5: the sm_90 GEMM with the fast tile schedule and the batched split-K reduction:
# the sm_90 GPU suite (with the schedule's host tests), the blocks' clock stamps, forced splits.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s57c5; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s57c5; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
timeout 200 $B/kdecl_gpu_sm90_tests > $R/sm90_tests.log 2>&1; echo "sm90 tests rc=$?"; grep -E "PASSED|FAILED|tests ran" $R/sm90_tests.log | head; save
timeout 60 $B/kdecl_sm90_timeline timeline > $R/timeline.log 2>&1; echo "timeline rc=$?"; save
timeout 200 $B/kdecl_sm90_probe splits > $R/forced_splits.log 2>&1; echo "splits rc=$?"; save
