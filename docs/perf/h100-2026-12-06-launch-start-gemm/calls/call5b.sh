#!/usr/bin/env bash
# Session 57, call 5b: the producer's start stamped step by step (an experimental timeline build).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path"
R=/tmp/s57c5b; mkdir -p $R
timeout 60 .dev/s57/bin/kdecl_sm90_timeline timeline > $R/timeline.log 2>&1; echo "rc=$?"
grep -E "blocks, event|entry -> (ready|producer)|ready -> first" $R/timeline.log | head -80
tar -C /tmp -cJf $OUT/results.tar.xz s57c5b
