#!/usr/bin/env bash
# Session 60, call 1: the narrow-channel backward-data path for 3-D stems (sm_90 implicit GEMM keys) and the
# narrow kernel's move into one unit (3240865, not yet run on a GPU).
#   (1) ConvDirectGpu.* (2-D narrow path on every direct key, the new 3-D test on every sm_90 3-D bwd_data key);
#   (2) compute-sanitizer memcheck + racecheck on a 3-D stem; (3) R3D-18's stem rows against cuDNN, --top 2,
#   launch costs; (4) every dense bwd_data row, --top 1, as far as the time goes.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s60c1; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s60c1; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT > $R/commit.txt 2>/dev/null
t direct_tests 200 $B/kdecl_gpu_tests --gtest_filter='ConvDirectGpu.*' --gtest_brief=1
grep -E "PASSED|FAILED|problems checked|Failure|error" $R/direct_tests.log | head -40; save
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1); SAN=${SAN:-$(command -v compute-sanitizer)}
if [[ -n "$SAN" ]]; then
  for tool in memcheck racecheck; do
    t san_$tool 60 $SAN --tool $tool --error-exitcode 9 $B/kdecl run conv --n 1 --c 3 --k 40 --dhw 4,37,45 --filter 3,7,7 --stride 1,2,2 --pad 1,3,3 --direction bwd_data --dtype bf16
    tail -3 $R/san_$tool.log
  done
  t san_memcheck_k37 60 $SAN --tool memcheck --error-exitcode 9 $B/kdecl run conv --n 2 --c 5 --k 37 --dhw 5,19,22 --filter 3 --stride 2 --pad 1 --direction bwd_data --dtype fp16
  tail -2 $R/san_memcheck_k37.log
fi
save
t bench_r3d 150 $B/kdecl bench conv --problems docs/perf/h100-2026-12-06-conv-narrow-3d-stem/calls/r3d_stem.csv --direction bwd_data --dtype bf16 --top 2 --warmup 5 --iters 20 --launch-cost --out $R --label r3d_stem_bwd_data
grep -E "^\| bwd_data" $R/r3d_stem_bwd_data.md | cut -c1-400; save
left=$(( 570 - ($(date +%s) - t0) ))
if (( left > 60 )); then
  t dense $((left + 10)) $B/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget $((left - 15)) --out $R --label bwd_data_dense
  grep -E "^\| bwd_data dense" $R/bwd_data_dense.md | cut -c1-300
fi
save; echo done after $(( $(date +%s) - t0 )) s
