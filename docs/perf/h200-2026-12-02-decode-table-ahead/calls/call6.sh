#!/usr/bin/env bash
# Session 44, call 6 (one H200; build-fmha): the combine stages each warp's round of 8 splits through cp.async (its
# register loads had been serialized by ptxas: 7.7 us at batch 1 x 4k in call 5's ncu). Decode GPU tests, memcheck on
# the split tests, ncu durations of both kernels at batch 1, and kdecl_bench_decode at the call-4 shapes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s44c6; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run memcheck 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.LlamaHeadsSplitAndOneStage:FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks'
run racecheck 100 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.LlamaHeadsSplitAndOneStage'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -6; done
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1); [ -z "$NCU" ] && NCU=$(which ncu)
for cfg in "--batch 1 --kv 4096" "--batch 1 --kv 32768"; do
  echo "== $cfg" >> $R/ncu.log
  timeout 60 $NCU --metrics gpu__time_duration.sum -k regex:paged_ --launch-skip 2 --launch-count 2 $B/kdecl_bench_decode $cfg --reps 3 --cudnn 0 2>&1 \
    | grep -E "void paged_|gpu__time" >> $R/ncu.log
done
cat $R/ncu.log
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 90 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail|error" | sed "s/\$/ [$*]/" >> $R/bench.log; }
bench --batch 1,8,64,256 --kv 4096,32768
bench --batch 1,8,64,256 --kv 4096,32768 --cache fp8
bench --batch 1 --kv 1024,16384,65536
bench --batch 1,8,64 --kv 4096,32768 --d 64
echo "bench after $(( $(date +%s) - t0 )) s"; cat $R/bench.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c6
