#!/usr/bin/env bash
# Session 42, call 3 (one H200): call 2's kernel (two Q buffers, ping-pong turns across tiles) with
# branch-free masking (two compares and a select per element; build-fmha): the attention GPU suite,
# memcheck/racecheck samples, Nsight Compute on two short masked rows, the 512/4096 rows against cuDNN.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r3; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_sm90_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.*'
run memcheck 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run racecheck 120 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
mkdir -p $R/ncu
for c in "causal512|--b 32 --hq 32 --hkv 8 --sq 512 --d 128 --mask bottom_right" "window127|--b 32 --hq 64 --hkv 8 --sq 512 --d 64 --window 127,0 --sinks"; do
  name=${c%%|*}; args=${c#*|}
  LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib timeout 100 $NCU --clock-control none --set full -k regex:tma_wgmma_ws --launch-skip 2 --launch-count 1 \
    -o $R/ncu/$name -f $B/kdecl bench fmha $args --dtype bf16 --warmup 1 --iters 3 --top 1 --out $R/ncu --label $name > $R/ncu/$name.log 2>&1
  $NCU --import $R/ncu/$name.ncu-rep --page details --print-units base > $R/ncu/$name.txt 2>&1
  echo "== ncu $name"; grep -E "Duration|Executed Instructions  |Shared is|Warp Cycles Per Issued" $R/ncu/$name.txt
done
for part in s512 s4096; do
  left=$(( ${BUDGET:-540} - ($(date +%s) - t0) ))
  (( left > 60 )) || break
  BENCH_BUDGET=$((left - 20)) BENCH_DIR=/tmp/bf_$part OUT=$R/$part BENCH_DTYPES=bf16 BENCH_FMHA_FILTER="name~$part" \
    BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_$part.log 2>&1
  echo "bench $part rc=$? after $(( $(date +%s) - t0 )) s"
  grep "^| bf16 b" $R/$part/bench_ops/fmha_bf16.md | awk -F'|' '{print $2,"|",$5,"|",$10,"|",$13}'
done
tar -C /tmp -cJf $OUT/results.tar.xz r3
