#!/usr/bin/env bash
# Session 44, call 3 (one H200; build-fmha at eac233e + bench_decode's --stages/--pages): ring depth A/B for the
# decode kernel (bf16 and fp8 caches, head dims 64 and 128: fewer stages, more blocks per SM), pages in order vs
# shuffled.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s44c3; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
bench() { timeout 90 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail|error|--stages" | sed "s/\$/ [$*]/" >> $R/bench.log; }
SH="--batch 1,8,64,256 --kv 4096,32768 --cudnn 0"
for st in 2 3 4 5; do
  bench $SH --stages $st
  bench $SH --stages $st --cache fp8
  bench $SH --stages $st --d 64
  bench $SH --stages $st --d 64 --cache fp8
  echo "stages $st after $(( $(date +%s) - t0 )) s"
done
bench --batch 1,8,64,256 --kv 4096,32768 --pages ordered
bench --batch 64,256 --kv 4096,32768 --pages ordered --cache fp8 --cudnn 0
echo "bench after $(( $(date +%s) - t0 )) s"; cat $R/bench.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c3
