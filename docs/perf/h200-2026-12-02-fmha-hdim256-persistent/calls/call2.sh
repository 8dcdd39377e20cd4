#!/usr/bin/env bash
# Session 41, call 2 (one H200): the sm_90 attention kernel at head dims 256 (80-key tiles) and 192/128:
# the FmhaSm90Gpu suite (every tma_wgmma_ws instance by name, every schedule), a memcheck sample, then
# `kdecl bench fmha` against cuDNN on the head-dim 256 and 192 rows of benchmarks/shapes/fmha_*.csv.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
NVRTC=$(python3 -c 'import glob, os, site
hits = [h for d in site.getsitepackages() for h in glob.glob(os.path.join(d, "nvidia", "**", "libnvrtc.so*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")' 2>/dev/null)
R=/tmp/r2; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_sm90_tests 240 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.*'
KDECL_FMHA_SM90_GRID=per_tile run fmha_sm90_per_tile 120 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryScheduleMatchesTheReference:FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run memcheck_wide 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
# Persistent grid (default) against one block per tile, on the checkpoint shapes (kdecl bench fmha, --top 1).
i=0
for grid in persistent per_tile; do
  echo "== grid $grid" >> $R/grid_ab.log
  for shape in "--b 32 --hq 16 --sq 512 --d 128" "--b 4 --hq 16 --sq 4096 --d 128" "--b 4 --hq 16 --sq 4096 --d 128 --mask causal" \
               "--b 32 --hq 12 --sq 512 --d 64" "--b 4 --hq 32 --sq 4096 --d 64 --mask causal" "--b 4 --hq 16 --hkv 8 --sq 4096 --d 256 --mask causal"; do
    i=$((i + 1))
    KDECL_FMHA_SM90_GRID=$grid LD_LIBRARY_PATH=$CUDNN:$NVRTC:$PWD/.carry/lib timeout 40 $B/kdecl bench fmha $shape --dtype bf16 \
      --warmup 3 --iters 20 --top 1 --out $R/ab --label ab$i > /dev/null 2>&1
    echo "$grid $shape: $(grep '^| bf16 b' $R/ab/ab$i.md | head -1)" >> $R/grid_ab.log
  done
done
cat $R/grid_ab.log | head -60
left=$(( ${BUDGET:-560} - ($(date +%s) - t0) ))
BENCH_BUDGET=$((left - 20)) BENCH_DIR=/tmp/bf OUT=$R BENCH_DTYPES=bf16 BENCH_FMHA_FILTER='d=256|192' \
  BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_fmha.log 2>&1
echo "bench rc=$?"; tail -n 5 $R/bench_fmha.log
tar -C /tmp -cJf $OUT/results.tar.xz r2
