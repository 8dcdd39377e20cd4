#!/usr/bin/env bash
# Session 43, call 3 (one H200; build-fmha binaries): paged prefill with the four producer warps sharing
# the copies (K/V x every other 64-column chunk), rings of 2 stages (the A/B set, bf16) against 3 (head dim
# 128, one Q buffer) and 4 (head dim 64), pages of 16, 32 and 64.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c3; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run racecheck 90 /usr/local/cuda/bin/compute-sanitizer --tool racecheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaPrefillGpu.TmaWgmmaLoadsPagesThroughTma'
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure" $f | head -12; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 60 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|no paged" | sed "s/\$/ [$*]/" >> $R/prefill.log; }
for cfg in "--batch 8 --kv 4096 --prefill 512" "--batch 4 --kv 2048 --prefill 2048" "--batch 1 --kv 16384 --prefill 4096"; do
  for page in 16 32 64; do
    bench $cfg --page-size $page --d 128 --kernel _s2_
    bench $cfg --page-size $page --d 128 --kernel _s3_
  done
  bench $cfg --page-size 16 --d 64 --kernel _s2_
  bench $cfg --page-size 16 --d 64 --kernel _s4_
  bench $cfg --page-size 16 --d 256 --hq 16
  bench $cfg --page-size 16 --d 128 --kernel _s3_ --dtype fp16
done
echo "prefill after $(( $(date +%s) - t0 )) s"; awk '{k=$0; sub(/.*\[/, "[", k); print $1,$2,$3,$4,$5,$6, k}' $R/prefill.log
tar -C /tmp -cJf $OUT/results.tar.xz s43c3
