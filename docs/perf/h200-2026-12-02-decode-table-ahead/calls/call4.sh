#!/usr/bin/env bash
# Session 44, call 4 (one H200; build-fmha): the K/V copies with an L2 prefetch hint of a row (up to 256 B), shallower
# default rings (2 stages; 3 for an fp8 cache at head dim 128)
# and a plan that splits the keys when one to three waves of blocks would leave the last one mostly empty. Decode GPU
# tests, memcheck, the shipped kernels against cuDNN (bf16) and fp8 against bf16, and the rings the defaults replaced
# (--stages) under the new plan, and the copies without their new L2 prefetch hint (--l2-prefetch 0).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s44c4; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run memcheck 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.Fp8CachePerTensorAndPerHeadScales:FmhaDecodeGpu.LlamaHeadsSplitAndOneStage'
run racecheck 120 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.Fp8CachePerTensorAndPerHeadScales'
run cli_select 30 $B/kdecl select fmha --paged --b 1,8,64,256 --skv 4096,32768 --explain
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|check:" $f | head -8; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 90 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail|error" | sed "s/\$/ [$*]/" >> $R/bench.log; }
SH="--batch 1,8,64,256 --kv 4096,32768"
bench $SH
bench $SH --cache fp8
bench $SH --d 64
bench $SH --d 64 --cache fp8
bench --batch 1,8,64 --kv 4096,32768 --d 256 --hq 16
bench --batch 1,8,64 --kv 4096,32768 --d 256 --hq 16 --cache fp8
bench --batch 1,8,64 --kv 4096,32768 --dtype fp16
bench --batch 1,8,64 --kv 4096,32768 --dtype fp16 --cache fp8
echo "defaults after $(( $(date +%s) - t0 )) s"
bench $SH --cudnn 0 --stages 3
bench $SH --cudnn 0 --stages 2 --cache fp8
bench $SH --cudnn 0 --stages 4 --cache fp8
bench $SH --cudnn 0 --stages 3 --d 64
bench $SH --cudnn 0 --stages 2 --l2-prefetch 0
bench $SH --cudnn 0 --stages 3 --l2-prefetch 0 --cache fp8
bench --batch 1,8,64,256 --kv 1024,16384,65536 --cudnn 0
bench --batch 1,8,64,256 --kv 1024,16384,65536 --cudnn 0 --stages 3
echo "bench after $(( $(date +%s) - t0 )) s"; cat $R/bench.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c4
