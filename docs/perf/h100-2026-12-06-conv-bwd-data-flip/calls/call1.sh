#!/usr/bin/env bash
# Session 58 (lean): backward-data's flipped weight copy in 16-byte vectors.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1); NCU=${NCU:-$(command -v ncu)}
R=$OUT/b; mkdir -p $R; t0=$(date +%s); B=.carry/bin
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.csv; cat $R/gpu.csv
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
left() { (( $(date +%s) - t0 < $1 )); }
t flip_probe 40 $B/kdecl_flip_weights_probe; cat $R/flip_probe.log
t flip_test 40 $B/kdecl_gpu_flip_weights_tests --gtest_brief=1; tail -3 $R/flip_test.log
t conv_bwd_tests 70 $B/kdecl_gpu_tests --gtest_filter='ConvBwdGpu.EveryBwdData*:ConvBwdGpu.Dispatcher*' --gtest_brief=1; grep -E "PASSED|FAILED|OK \]" $R/conv_bwd_tests.log | head
t bench_bwd_data 100 $B/kdecl bench conv --problems .dev/conv/worst_bwd_data.csv --direction bwd_data --dtype bf16 --top 2 --warmup 5 --iters 20 --launch-cost --out $R --label bwd_data
grep -E "^\| bwd_data" $R/bwd_data.md | head -3 | cut -c1-200
left 170 && { timeout 50 $NCU --clock-control none --kernel-name-base demangled -k regex:kdecl --metrics gpu__time_duration.sum --csv \
  $B/kdecl run conv --problems .dev/conv/worst_bwd_data_n1.csv --direction bwd_data --dtype bf16 > $R/ncu_bwd_data_n1.csv 2> $R/ncu_bwd_data_n1.err; echo "ncu rc=$? after $(( $(date +%s) - t0 )) s"; }
echo done after $(( $(date +%s) - t0 )) s
