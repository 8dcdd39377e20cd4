#!/usr/bin/env bash
# Session 65, call B (after call A's clusters lost, main without them): the combine kernel's first round of
# partial rows copied before its LSE reads; how the L2 eviction before each timed launch shapes batch-1 decode.
# (1) kdecl_fmha_decode_gpu_tests on the new combine;
# (2) kdecl_bench_decode: the old binary (kdecl_bench_decode_base, dcbf8d4's kernels) and the new one in
#     alternating runs, each launch after a 256 MiB write (the record's method: L2 left dirty) and after a
#     256 MiB read (L2 left clean); cuDNN and the copy timed in the same processes under the same eviction;
# (3) split counts and ring depths at batch 1 with a clean L2.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s65b; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s65b; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
t tests 240 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20; save
for flush in write read; do
  for round in 1 2; do
    for bin in base new; do
      exe=$B/kdecl_bench_decode; [[ $bin == base ]] && exe=$B/kdecl_bench_decode_base
      extra=""; [[ $flush == read ]] && extra="--flush read"
      [[ $bin == base && $flush == read ]] && continue  # the old binary has no --flush
      t ${bin}_${flush}_r$round 100 $exe --batch 1,8 --kv 4096,8192,16384,32768,65536 --reps 30 $extra
      grep -E "^ +[0-9]" $R/${bin}_${flush}_r$round.log | sed "s/^/$bin $flush r$round /"
      save
    done
  done
done
for st in 2 3; do
  for sp in 16 24 32 48; do
    t knob_s${st}_p$sp 60 $B/kdecl_bench_decode --batch 1 --kv 4096,8192,32768 --stages $st --splits $sp --flush read --cudnn 0 --reps 30
    grep -E "^ +[0-9]" $R/knob_s${st}_p$sp.log | sed "s/^/stages $st splits $sp /"
  done
done
save
t fp8_read 60 $B/kdecl_bench_decode --batch 1,8 --kv 4096,32768 --cache fp8 --flush read --reps 30
grep -hE "^ +[0-9]" $R/fp8_read.log; save
echo "done after $(( $(date +%s) - t0 )) s"
