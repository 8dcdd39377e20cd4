#!/usr/bin/env bash
# Session 59, call C: (1) the narrow-channel fixes (launch limit with static shared memory; patchify back on the
# GEMM): ConvDirectGpu.*, bench of .dev/s59/check.csv with launch costs (and ResNet-50 N=1 rows: host cost after
# 3597731), the flip probe; (2) session 57's GEMM branch probes
# (.dev/next/call1.sh: dsmem exchange, timelines main/divmod/push, sm90 tests of both branches, push splits).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
Z=.carry/bin/zstd; [[ -x $Z ]] || Z=.carryz/zstd
R=/tmp/c; mkdir -p $R/bin; B=.carry/bin
for b in push divmod; do mkdir -p $R/bin/$b; for f in .dev/next/bins/$b/*.zst; do $Z -q -d -f -o $R/bin/$b/$(basename $f .zst) $f; done; chmod +x $R/bin/$b/*; done
save() { tar -C /tmp --exclude=c/bin -cJf $OUT/results.tar.xz c; }
t0=$(date +%s)
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
t direct_tests 60 $B/kdecl_gpu_tests --gtest_filter='ConvDirectGpu.*' --gtest_brief=1
grep -E "PASSED|FAILED|Failure" $R/direct_tests.log | head -10
t flip_probe 40 $B/kdecl_flip_weights_probe; tail -8 $R/flip_probe.log
t bench_check 90 $B/kdecl bench conv --problems .dev/s59/check.csv --direction bwd_data --dtype bf16 --top 2 --warmup 5 --iters 20 --launch-cost --out $R --label check_bwd_data
grep -E "^\| bwd_data [23]" $R/check_bwd_data.md | cut -c1-60,200-420; save
t dsmem 50 $B/kdecl_dsmem_reduce_probe; tail -12 $R/dsmem.log; save
t timeline_main 50 $B/kdecl_sm90_timeline timeline
t timeline_divmod 50 $R/bin/divmod/kdecl_sm90_timeline timeline
t timeline_push 50 $R/bin/push/kdecl_sm90_timeline timeline
for v in main divmod push; do echo "== $v"; grep -E "blocks, event|producer first issue|partial shared -> reduced" $R/timeline_$v.log | head -12; done
save
t sm90_divmod 100 $R/bin/divmod/kdecl_gpu_sm90_tests --gtest_brief=1; grep -E "PASSED|FAILED" $R/sm90_divmod.log | head -5
save
(( $(date +%s) - t0 < 400 )) && { t sm90_push 100 $R/bin/push/kdecl_gpu_sm90_tests --gtest_brief=1; grep -E "PASSED|FAILED" $R/sm90_push.log | head -5; save; }
(( $(date +%s) - t0 < 430 )) && { t splits_push 90 $R/bin/push/kdecl_sm90_probe splits; save; }
echo done after $(( $(date +%s) - t0 )) s
