#!/usr/bin/env bash
# Session 43, call 2 (one H200; build-fmha binaries, the attention sets only, with the HIP branch merged:
# the CUDA score modifiers now call kernels/fmha/score_mod.hpp). Paged prefill with two producer warps
# issuing the copies (K and V), a 3-stage ring at head dim 128 (--kernel _s3_), the forward kernel's
# persistent grid in group mode with row blocks slowest (the new default) against one block per tile.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c2; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
KDECL_FMHA_SM90_GRID=per_tile run fmha_per_tile 90 $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.EveryScheduleMatchesTheReference:FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
run memcheck 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_gpu_tests --gtest_brief=1 --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
for cfg in "--batch 8 --kv 4096 --prefill 512" "--batch 4 --kv 2048 --prefill 2048" "--batch 1 --kv 16384 --prefill 4096"; do
  for page in 16 64; do
    timeout 60 $B/kdecl_bench_decode $cfg --page-size $page --d 128 --reps 20 2>&1 | grep -E "^ +[0-9]" >> $R/prefill.log
  done
  timeout 60 $B/kdecl_bench_decode $cfg --page-size 16 --d 128 --reps 20 --kernel _s3_ 2>&1 | grep -E "^ +[0-9]|no paged" >> $R/prefill.log
  KDECL_FMHA_SM90_GRID=per_tile timeout 60 $B/kdecl_bench_decode $cfg --page-size 16 --d 128 --reps 20 2>&1 | grep -E "^ +[0-9]" | sed 's/$/ (per_tile)/' >> $R/prefill.log
done
timeout 60 $B/kdecl_bench_decode --batch 8 --kv 4096 --prefill 512 --page-size 16 --d 64 --reps 20 2>&1 | grep -E "^ +[0-9]" >> $R/prefill.log
timeout 60 $B/kdecl_bench_decode --batch 8 --kv 4096 --prefill 512 --page-size 16 --d 256 --hq 16 --reps 20 2>&1 | grep -E "^ +[0-9]" >> $R/prefill.log
echo "prefill after $(( $(date +%s) - t0 )) s"; awk '{print $1,$2,$3,$4,$5,$6,$7,$8, ($10 ~ /s3/ ? "s3" : ""), $NF}' $R/prefill.log
for grid in default per_tile; do
  left=$(( ${BUDGET:-400} - ($(date +%s) - t0) ))
  (( left > 40 )) || break
  env $( [[ $grid == per_tile ]] && echo KDECL_FMHA_SM90_GRID=per_tile ) timeout $((left - 10)) $B/kdecl bench fmha \
    --problems benchmarks/shapes/fmha_varlen.csv --dtype bf16 \
    --warmup 3 --iters 20 --target-ms 40 --top 1 --out $R/varlen_$grid --label varlen_$grid > $R/varlen_$grid.log 2>&1
  echo "varlen $grid rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\|" $R/varlen_$grid.log | head -12
done
tar -C /tmp -cJf $OUT/results.tar.xz s43c2
