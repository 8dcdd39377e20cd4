#!/usr/bin/env bash
# Session 41, call 5 (one H200): masked batch problems on the persistent grid (row blocks longest first,
# rounds alternating direction): every attention GPU test, the schedules and the dispatcher tests one
# block per tile, then `kdecl bench fmha` against cuDNN over benchmarks/shapes/fmha_*.csv (bf16) and
# the grid A/B on six checkpoint shapes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
NVRTC=$(python3 -c 'import glob, os, site
hits = [h for d in site.getsitepackages() for h in glob.glob(os.path.join(d, "nvidia", "**", "libnvrtc.so*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")' 2>/dev/null)
R=/tmp/r5; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
KDECL_FMHA_SM90_GRID=per_tile run fmha_sm90_per_tile 90 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryScheduleMatchesTheReference:FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run memcheck_masked 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.LongSequencesOnTheTmaKernel'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -8; done
BENCH_BUDGET=240 BENCH_DIR=/tmp/bf5 OUT=$R BENCH_DTYPES=bf16 \
  BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_fmha.log 2>&1
echo "bench rc=$?"
sed -n '/| group/,/^$/p' $R/bench_ops/fmha_bf16.md
i=0
for grid in persistent per_tile; do
  for shape in "--b 32 --hq 32 --hkv 8 --sq 512 --d 128 --mask causal" "--b 4 --hq 32 --hkv 8 --sq 4096 --d 128 --mask causal" \
               "--b 1 --hq 32 --hkv 8 --sq 16384 --d 128 --mask causal" "--b 32 --hq 64 --hkv 8 --sq 512 --d 64 --mask window --window 127,0 --sinks"; do
    i=$((i + 1))
    KDECL_FMHA_SM90_GRID=$grid LD_LIBRARY_PATH=$CUDNN:$NVRTC:$PWD/.carry/lib timeout 40 $B/kdecl bench fmha $shape --dtype bf16 \
      --warmup 3 --iters 20 --top 1 --out $R/ab --label ab$i > $R/ab$i.txt 2>&1
    echo "$grid $shape: $(grep '^| bf16 b' $R/ab/ab$i.md | head -1)" >> $R/grid_ab.log
  done
done
cut -c1-400 $R/grid_ab.log
tar -C /tmp -cJf $OUT/results.tar.xz r5
