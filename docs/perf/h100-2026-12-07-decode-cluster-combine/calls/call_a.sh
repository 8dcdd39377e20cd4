#!/usr/bin/env bash
# Session 65, call A: split-KV decode whose splits combine inside a thread-block cluster (sm_90).
# (1) kdecl_fmha_decode_gpu_tests (every decode/append/prefill test; the new cluster-or-workspace test);
# (2) compute-sanitizer memcheck and racecheck on the new test;
# (3) kdecl_bench_decode (Llama-3-8B heads, page 16, bf16), clusters (--cluster 16) against the combine
#     kernel (--cluster 0) in alternating runs, cuDNN on a contiguous cache in the same processes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s65a; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s65a; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
t tests 240 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20
grep -E "splits .* max O error" $R/tests.log | grep -i "cluster\|Sq 5, window\|head dim 200 fp16, splits\|fp8 cache, splits 5\|32k, split auto" | head -12; save
t memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='*SplitsCombineInACluster*'
t racecheck 150 compute-sanitizer --tool racecheck --error-exitcode 9 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='*SplitsCombineInACluster*'
grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/memcheck.log $R/racecheck.log | head; save
for round in 1 2; do
  for c in 16 0; do
    t bench_c${c}_r$round 100 $B/kdecl_bench_decode --batch 1,8 --kv 4096,8192,16384,32768,65536 --cluster $c --reps 30
    grep -E "^ +[0-9]" $R/bench_c${c}_r$round.log | sed "s/^/c$c r$round /"
    save
  done
done
t bench_fp8_c16 60 $B/kdecl_bench_decode --batch 1,8 --kv 4096,32768 --cache fp8 --cluster 16 --reps 30
t bench_fp8_c0 60 $B/kdecl_bench_decode --batch 1,8 --kv 4096,32768 --cache fp8 --cluster 0 --reps 30
grep -hE "^ +[0-9]" $R/bench_fp8_c16.log $R/bench_fp8_c0.log; save
echo "done after $(( $(date +%s) - t0 )) s"
