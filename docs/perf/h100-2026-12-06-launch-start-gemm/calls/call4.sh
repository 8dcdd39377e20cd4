#!/usr/bin/env bash
# Session 57, call 4: the GEMM blocks' clock stamps again, stores only (call 3's stamps read the array first).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s57c4; mkdir -p $R
timeout 120 $B/kdecl_sm90_timeline timeline > $R/timeline.log 2>&1; echo "timeline rc=$?"
tar -C /tmp -cJf $OUT/results.tar.xz s57c4
