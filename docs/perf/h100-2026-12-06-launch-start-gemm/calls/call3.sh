#!/usr/bin/env bash
# Session 57, call 3: (1) the GEMM blocks' clock stamps (kdecl_sm90_timeline timeline); (2) the batch-1
# decode over split counts and ring depths (kdecl_bench_decode --splits/--stages), no cuDNN.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s57c3; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s57c3; }
timeout 120 $B/kdecl_sm90_timeline timeline > $R/timeline.log 2>&1; echo "timeline rc=$?"; cat $R/timeline.log; save
for st in 2 3 4; do
  for sp in auto 16 24 48 64 96; do
    echo "== stages $st splits $sp" >> $R/decode_knobs.log
    timeout 60 $B/kdecl_bench_decode --batch 1 --kv 4096,8192,32768 --reps 20 --cudnn 0 --stages $st --splits $sp >> $R/decode_knobs.log 2>&1
  done
done
grep -E "^==|^ +1 " $R/decode_knobs.log; save
