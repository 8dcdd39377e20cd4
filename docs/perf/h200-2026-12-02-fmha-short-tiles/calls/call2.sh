#!/usr/bin/env bash
# Session 42, call 2 (one H200): the sm_90 attention kernel with two Q buffers (where shared memory
# allows) and ping-pong turns that run on across tiles (build-fmha, KDECL_INSTANCE_FILTER=fmha_):
# the attention GPU suite, a memcheck sample, then the 512- and 4096-long rows against cuDNN.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r2; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_sm90_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.*'
run memcheck 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run racecheck 120 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
for part in s512 s4096; do
  left=$(( ${BUDGET:-540} - ($(date +%s) - t0) ))
  (( left > 60 )) || break
  BENCH_BUDGET=$((left - 20)) BENCH_DIR=/tmp/bf_$part OUT=$R/$part BENCH_DTYPES=bf16 BENCH_FMHA_FILTER="name~$part" \
    BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_$part.log 2>&1
  echo "bench $part rc=$? after $(( $(date +%s) - t0 )) s"
  grep "^| bf16 b" $R/$part/bench_ops/fmha_bf16.md | awk -F'|' '{print $2,"|",$5,"|",$10,"|",$13}'
done
tar -C /tmp -cJf $OUT/results.tar.xz r2
