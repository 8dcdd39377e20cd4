#!/usr/bin/env bash
# Session 44, call 5 (one H200; build-fmha: the shallow rings, without call 4's L2 hint; page_shift() shared): the
# decode GPU tests again, then Nsight Compute durations of the decode and combine kernels at
# batch 1 (4k and 32k keys), 8 x 4k and 256 x 4k/32k, bf16 and fp8, with DRAM throughput and issue-slot use, to see where batch 1's
# time goes (the event-timed figure also holds the launches).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
R=/tmp/s44c5; mkdir -p $R
timeout 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 > $R/decode_tests.log 2>&1; echo "decode tests rc=$?"; tail -1 $R/decode_tests.log
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); [ -z "$NCU" ] && NCU=$(which ncu)
echo "ncu: $NCU"
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__inst_issued.avg.pct_of_peak_sustained_active,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
for cfg in "--batch 1 --kv 4096" "--batch 1 --kv 32768" "--batch 8 --kv 4096" "--batch 1 --kv 4096 --cache fp8" "--batch 64 --kv 4096 --cache fp8" "--batch 256 --kv 4096" "--batch 256 --kv 32768"; do
  echo "== $cfg" >> $R/ncu.log
  timeout 120 $NCU --metrics $M -k regex:paged_ --launch-skip 2 --launch-count 4 $B/kdecl_bench_decode $cfg --reps 3 --cudnn 0 2>&1 \
    | grep -E "paged_|gpu__time|dram__|inst_issued|warps_active|grid_size|occupancy" >> $R/ncu.log
done
cat $R/ncu.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c5
