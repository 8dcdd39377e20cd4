#!/usr/bin/env bash
# Pending call 1 (prepared in sessions 67-68; no machine came): the decode merge/prologue patch
# (decode_merge_prologue.patch) against main's kernel. Decode GPU tests, block timelines (base = main's
# kernel, new = the patch's), two rounds of base and new bf16 timings (cuDNN off), the new kernel with
# cuDNN (contiguous and paged) in turns, the fp8 and head-dim-64 kernels once, compute-sanitizer
# memcheck and racecheck on one test (the patch changes shared-memory indexing). About 4-5 minutes.
# How its carry was built: `git show 36b303a:docs/perf/pending/README.md`.
set -uo pipefail
source benchmarks/call_prelude.sh pending1
t tests 90 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20; save
for bin in base new; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t timeline_$bin 25 $B/kdecl_decode_timeline$sfx --batch 1,8 --kv 4096,16384
done
save
for bin in base new base new; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t ${bin}_bf16 25 $B/kdecl_bench_decode$sfx --batch 1,2,8,64 --kv 4096,16384 --reps 30 --cudnn 0
  cat $R/${bin}_bf16.log >> $R/${bin}_bf16_all.log
done
save
t new_cudnn 30 $B/kdecl_bench_decode --batch 1,8,64 --kv 4096,16384 --reps 30
t new_fp8_d64 25 bash -c "$B/kdecl_bench_decode --batch 1,8 --kv 4096,16384 --cache fp8 --reps 30 --cudnn 0; $B/kdecl_bench_decode --batch 1,8 --kv 4096,16384 --d 64 --reps 30 --cudnn 0"
save
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  t sanitizer_$tool 60 $CS --tool $tool --error-exitcode 9 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks'
  tail -2 $R/sanitizer_$tool.log
done
save
echo "done after $(( $(date +%s) - t0 )) s"
