#!/usr/bin/env bash
# Session 67, call 3: the decode kernel's merge (float2 stores into a swizzled buffer, padding rows
# skipped) and prologue (the ring's first tiles' pages read together) against d7dd083's kernel
# (kdecl_bench_decode_base, kdecl_decode_timeline_base; built as call_3b.sh says) in alternating runs, cuDNN off; then
# the new kernel once with cuDNN timed in turns (the record's method), which also shows whether
# cuDNN's turns change our times (batch 8-64 x 4k ran 9-16% slower with them in call 1).
# (1) decode GPU tests; (2) block timelines; (3) bf16 D 128 batches 1-64, fp8 cache, head dim 64 (the fp8
# and D 64 kernels' merge changed too); (4) compute-sanitizer memcheck and racecheck on a sample, last.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s67; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s67; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carryz/COMMIT | tee $R/commit.txt
t tests 240 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20; save
for bin in base new; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t timeline_$bin 60 $B/kdecl_decode_timeline$sfx --batch 1,8 --kv 4096,16384
done
grep -E "^batch|loop done|first copies|start -> first" $R/timeline_base.log $R/timeline_new.log; save
for round in 1 2; do
  for bin in base new; do
    sfx=; [[ $bin == base ]] && sfx=_base
    exe=$B/kdecl_bench_decode$sfx
    t ${bin}_bf16_r$round 80 $exe --batch 1,2,4,8,16,32,64 --kv 4096,8192,16384,32768 --reps 30 --cudnn 0
    grep -E "^ +[0-9]" $R/${bin}_bf16_r$round.log | sed "s/^/$bin bf16 r$round /"
    if ((round == 1)); then
      t ${bin}_fp8 40 $exe --batch 1,2,8 --kv 4096,16384,65536 --cache fp8 --reps 30 --cudnn 0
      t ${bin}_d64 40 $exe --batch 1,2,8 --kv 4096,16384,65536 --d 64 --reps 30 --cudnn 0
      grep -hE "^ +[0-9]" $R/${bin}_fp8.log $R/${bin}_d64.log | sed "s/^/$bin fp8|d64 /"
    fi
    save
  done
done
t new_cudnn 90 $B/kdecl_bench_decode --batch 1,2,4,8,16,32,64 --kv 4096,8192,16384,32768 --reps 30
grep -E "^ +[0-9]" $R/new_cudnn.log | sed "s/^/new cudnn /"; save
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  t sanitizer_$tool 75 $CS --tool $tool --error-exitcode 9 $B/kdecl_fmha_decode_gpu_tests \
    --gtest_filter='FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks:FmhaDecodeGpu.Fp8CachePerTensorAndPerHeadScales'
  tail -3 $R/sanitizer_$tool.log
done
save
echo "done after $(( $(date +%s) - t0 )) s"
