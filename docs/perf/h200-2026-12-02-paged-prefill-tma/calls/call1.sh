#!/usr/bin/env bash
# Session 43, call 1 (one H200): batch_prefill over a paged cache on the tma_wgmma_ws kernel (binaries of
# build-fmha: the attention sets only). The serving and forward attention GPU tests, compute-sanitizer on the
# new prefill test, kdecl_bench_decode --prefill (the paged dispatcher's choice against the forward
# dispatcher's on the same attention with contiguous K/V, and the mma_sync prefill), then an A/B of the
# forward kernel's grid on the varlen shape list (one block per tile, the default in group mode, against
# the persistent grid). BUDGET: seconds this script may take (default 420).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
run memcheck 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaPrefillGpu.TmaWgmmaLoadsPagesThroughTma'
run racecheck 90 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaPrefillGpu.TmaWgmmaLoadsPagesThroughTma'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|tma  |mma_sync  " $f | head -40; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
for cfg in "--batch 8 --kv 4096 --prefill 512" "--batch 4 --kv 2048 --prefill 2048" "--batch 16 --kv 1024 --prefill 1024" \
           "--batch 1 --kv 16384 --prefill 4096"; do
  for page in 16 64 256; do
    timeout 60 $B/kdecl_bench_decode $cfg --page-size $page --d 128 --reps 20 >> $R/prefill.log 2>&1
  done
done
timeout 60 $B/kdecl_bench_decode --batch 8 --kv 4096 --prefill 512 --page-size 16 --d 64 --reps 20 >> $R/prefill.log 2>&1
timeout 60 $B/kdecl_bench_decode --batch 8 --kv 4096 --prefill 512 --page-size 16 --d 256 --hq 16 --reps 20 >> $R/prefill.log 2>&1
KDECL_FMHA_SM90_GRID=persistent timeout 60 $B/kdecl_bench_decode --batch 4 --kv 2048 --prefill 2048 --page-size 16 --d 128 --reps 20 > $R/prefill_persistent.log 2>&1
echo "prefill after $(( $(date +%s) - t0 )) s"; grep -vE "^#" $R/prefill.log | grep -E "^ +[0-9]|batch_prefill" | head -40; cat $R/prefill_persistent.log | tail -2
for grid in per_tile persistent; do
  left=$(( ${BUDGET:-420} - ($(date +%s) - t0) ))
  (( left > 40 )) || break
  KDECL_FMHA_SM90_GRID=$grid timeout $((left - 10)) $B/kdecl bench fmha --problems benchmarks/shapes/fmha_varlen.csv --dtype bf16 \
    --warmup 3 --iters 20 --target-ms 40 --top 1 --out $R/varlen_$grid --label varlen_$grid > $R/varlen_$grid.log 2>&1
  echo "varlen $grid rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\|" $R/varlen_$grid.log | head -12
done
tar -C /tmp -cJf $OUT/results.tar.xz s43c1
