#!/usr/bin/env bash
# Session 61, call 2: backward-data's phases on W as stored (no flipped copy). (1) GPU tests: every bwd_data
# kernel, both routes of every im2col key, the dispatcher's layers; (2) compute-sanitizer memcheck + racecheck on
# a stored-route layer (2-D stride 2, 3-D); (3) the host cost per launch (probe); (4) ResNet-50's batch-1 3x3 rows
# with --launch-cost; (5) every dense bwd_data row (--top 1) as far as the time goes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s61c2; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s61c2; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT > $R/commit.txt 2>/dev/null
t tests 200 $B/kdecl_gpu_tests --gtest_filter='ConvBwdGpu.EveryBwdData*:ConvBwdGpu.Sm90BwdData*:ConvBwdGpu.DispatcherRuns*:ConvDirectGpu.*' --gtest_brief=1
grep -E "PASSED|FAILED|Failure|runs on W|kernels for|error" $R/tests.log | head -40; save
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1); SAN=${SAN:-$(command -v compute-sanitizer)}
if [[ -n "$SAN" ]]; then
  for tool in memcheck racecheck; do
    t san_${tool}_2d 60 $SAN --tool $tool --error-exitcode 9 $B/kdecl run conv --n 2 --c 64 --k 128 --hw 29,27 --filter 3 --stride 2 --pad 1 --direction bwd_data --dtype bf16
    tail -2 $R/san_${tool}_2d.log
  done
  t san_memcheck_3d 60 $SAN --tool memcheck --error-exitcode 9 $B/kdecl run conv --n 1 --c 40 --k 64 --dhw 5,9,11 --filter 3 --stride 2 --pad 1 --direction bwd_data --dtype fp16
  tail -2 $R/san_memcheck_3d.log
fi
save
t probe 60 $B/kdecl_launch_cost_probe conv; grep -vE "^\s*$" $R/probe.log | head -40; save
t resnet_b1 90 $B/kdecl bench conv --problems docs/perf/h100-2026-12-06-conv-narrow-3d-stem/calls/resnet_b1_3x3.csv --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label resnet_b1_3x3
grep -E "^\| bwd_data" $R/resnet_b1_3x3.md | cut -c1-220; save
left=$(( 250 - ($(date +%s) - t0) ))
if (( left > 60 )); then
  t dense $((left + 10)) $B/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget $((left - 15)) --out $R --label bwd_data_dense
  grep -E "^\| bwd_data dense" $R/bwd_data_dense.md | cut -c1-300
fi
save; echo done after $(( $(date +%s) - t0 )) s
