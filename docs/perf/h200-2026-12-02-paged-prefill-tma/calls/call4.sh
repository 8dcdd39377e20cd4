#!/usr/bin/env bash
# Session 43, call 4 (one H200): the full build (build-device, every set) of the committed tree: every attention
# GPU test (forward, serving; the forward ones also one block per tile), compute-sanitizer samples, the paged
# prefill benchmark with the shipped rings (3 stages at head dim 128, 4 at 64), then the bf16 attention shape
# lists against cuDNN (persistent grid in group mode; the CUDA score modifiers through the shared
# kernels/fmha/score_mod.hpp). BUDGET: seconds this script may take (default 420).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c4; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
run decode_tests 120 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
KDECL_FMHA_SM90_GRID=per_tile run fmha_per_tile 90 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryScheduleMatchesTheReference:FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run memcheck 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaPrefillGpu.TmaWgmmaLoadsPagesThroughTma'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 60 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|no paged" | sed "s/\$/ [$*]/" >> $R/prefill.log; }
for cfg in "--batch 8 --kv 4096 --prefill 512" "--batch 4 --kv 2048 --prefill 2048" "--batch 1 --kv 16384 --prefill 4096"; do
  for d in 64 128; do bench $cfg --page-size 16 --d $d; done
  bench $cfg --page-size 16 --d 256 --hq 16
done
echo "prefill after $(( $(date +%s) - t0 )) s"; awk '{k=$0; sub(/.*\[/, "[", k); print $1,$2,$3,$4,$5,$6,$7, k}' $R/prefill.log
left=$(( ${BUDGET:-420} - ($(date +%s) - t0) ))
if (( left > 60 )); then
  BENCH_BUDGET=$((left - 15)) BENCH_DIR=/tmp/bf_bf16 OUT=$R/bf16 BENCH_DTYPES=bf16 \
    BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_bf16.log 2>&1
  echo "bench bf16 rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\| (all|bf16 d)" $R/bf16/bench_ops/fmha_bf16.md | awk -F'|' '{print $2,"|",$3,"|",$4,"|",$5,"|",$6}'
fi
tar -C /tmp -cJf $OUT/results.tar.xz s43c4
