#!/usr/bin/env bash
# Session 42, call 6 (one H200): the final build (build-device, every set) with the four kernel changes
# of calls 2-5: every attention GPU test (persistent grid and one block per tile), memcheck/racecheck
# samples, Nsight Compute on the causal 512-long row, then the bf16 shape lists against cuDNN and, in
# what time is left, the fp16 ones. BUDGET: seconds this script may take (default 400).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r6; mkdir -p $R/ncu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
KDECL_FMHA_SM90_GRID=per_tile run fmha_sm90_per_tile 90 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryScheduleMatchesTheReference:FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run memcheck 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run racecheck 60 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib timeout 60 $NCU --clock-control none --set full -k regex:tma_wgmma_ws --launch-skip 2 --launch-count 1 \
  -o $R/ncu/causal512 -f $B/kdecl bench fmha --b 32 --hq 32 --hkv 8 --sq 512 --d 128 --mask bottom_right --dtype bf16 \
  --warmup 1 --iters 3 --top 1 --out $R/ncu --label causal512 > $R/ncu/causal512.log 2>&1
$NCU --import $R/ncu/causal512.ncu-rep --page details --print-units base > $R/ncu/causal512.txt 2>&1
grep -E "Duration|Tensor is|Shared is|excessive sectors|Issue Slots Busy" $R/ncu/causal512.txt
for dt in bf16 fp16; do
  left=$(( ${BUDGET:-400} - ($(date +%s) - t0) ))
  (( left > 40 )) || break
  BENCH_BUDGET=$((left - 15)) BENCH_DIR=/tmp/bf_$dt OUT=$R/$dt BENCH_DTYPES=$dt \
    BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_$dt.log 2>&1
  echo "bench $dt rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\| (all|bf16 d|fp16 d)" $R/$dt/bench_ops/fmha_$dt.md | awk -F'|' '{print $2,"|",$3,"|",$4,"|",$5,"|",$6}'
done
tar -C /tmp -cJf $OUT/results.tar.xz r6
