#!/usr/bin/env bash
# Session 65, call D: the shipped split plan (under one wave at most 2 blocks per SM) on the GPU.
# (1) kdecl_fmha_decode_gpu_tests; (2) kdecl_bench_decode of dcbf8d4 (kdecl_bench_decode_base: the plan for the
# occupancy) and of this commit in alternating runs (and, since cb26d43, plain against a soft-cap of 50): bf16 D 128 batches 1-64 with cuDNN (L2 evicted by a write, the
# record's method), an fp8 cache and head dim 64 (whose plans change too). Run by call_de.sh (with the fp16 sweep).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s65d; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s65d; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
t tests 240 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20; save
# Where batch 1's time goes (115b379's probe, if carried): every block's phases, L2 dirty and clean.
if [[ -x $B/kdecl_decode_timeline ]]; then
  t timeline_write 60 $B/kdecl_decode_timeline --batch 1,8 --kv 4096,16384,32768
  t timeline_read 60 $B/kdecl_decode_timeline --batch 1,8 --kv 4096,16384,32768 --flush read
  cat $R/timeline_write.log; save
fi
for round in 1 2; do
  for bin in base new; do
    exe=$B/kdecl_bench_decode; [[ $bin == base ]] && exe=$B/kdecl_bench_decode_base
    [[ -x $exe ]] || continue  # the base binary is optional (the carry may not fit it)
    t ${bin}_bf16_r$round 100 $exe --batch 1,2,4,8,16,32,64 --kv 4096,8192,16384,32768,65536 --reps 30
    grep -E "^ +[0-9]" $R/${bin}_bf16_r$round.log | sed "s/^/$bin bf16 r$round /"
    if ((round == 1)); then
      t ${bin}_fp8 60 $exe --batch 1,2,8 --kv 4096,16384,65536 --cache fp8 --reps 30
      t ${bin}_d64 60 $exe --batch 1,2,8 --kv 4096,16384,65536 --d 64 --reps 30
      grep -hE "^ +[0-9]" $R/${bin}_fp8.log $R/${bin}_d64.log | sed "s/^/$bin fp8|d64 /"
    fi
    save
  done
done
# cb26d43: the decode kernel's soft-cap on tanh.approx (was tanhf): plain against --softcap 50 in each binary.
for bin in base new; do
  exe=$B/kdecl_bench_decode; [[ $bin == base ]] && exe=$B/kdecl_bench_decode_base
  [[ -x $exe ]] || continue
  for cap in 0 50; do
    t ${bin}_cap$cap 60 $exe --batch 1,8,64 --kv 4096,32768 --reps 30 --cudnn 0 $( ((cap)) && echo --softcap $cap )
    grep -E "^ +[0-9]" $R/${bin}_cap$cap.log | sed "s/^/$bin softcap $cap /"
  done
  save
done
echo "done after $(( $(date +%s) - t0 )) s"
