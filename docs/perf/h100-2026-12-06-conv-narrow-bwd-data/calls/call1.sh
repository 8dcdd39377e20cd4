#!/usr/bin/env bash
# Session 59, call B: the narrow-channel backward-data path (stems) and the flip refactor (3597731) on the GPU.
#   (1) GPU tests: ConvDirectGpu.* (the narrow path on every direct bwd_data kernel, the dispatcher's stem choice),
#       ConvBwdGpu.*, the flip kernels; (2) compute-sanitizer memcheck + racecheck on two stems through the narrow path;
#   (3) bench conv bwd_data on the stem rows (C <= 8) against cuDNN, launch costs; (4) the dense bwd_data rows, as far
#       as the time goes (resumable record).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/b; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz b; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
t direct_tests 200 $B/kdecl_gpu_tests --gtest_filter='ConvDirectGpu.*' --gtest_brief=1
grep -E "PASSED|FAILED|narrow-channel problems|Failure|error" $R/direct_tests.log | head -30; save
t flip_test 40 $B/kdecl_gpu_flip_weights_tests --gtest_brief=1; tail -2 $R/flip_test.log
SAN=$(ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1); SAN=${SAN:-$(command -v compute-sanitizer)}
if [[ -n "$SAN" ]]; then
  for tool in memcheck racecheck; do
    t san_$tool 60 $SAN --tool $tool --error-exitcode 9 $B/kdecl run conv --n 1 --c 3 --k 40 --hw 37,45 --filter 7 --stride 2 --pad 3 --direction bwd_data --dtype bf16
    tail -3 $R/san_$tool.log
  done
  t san_memcheck_c1 60 $SAN --tool memcheck --error-exitcode 9 $B/kdecl run conv --n 2 --c 1 --k 24 --hw 41,70 --filter 3 --direction bwd_data --dtype fp16
  tail -2 $R/san_memcheck_c1.log
fi
save
t bench_stems 120 $B/kdecl bench conv --problems .dev/s59/stems.csv --direction bwd_data --dtype bf16 --top 2 --warmup 5 --iters 20 --launch-cost --out $R --label stems_bwd_data
grep -E "^\| bwd_data" $R/stems_bwd_data.md | cut -c1-400; save
t conv_bwd_tests 150 $B/kdecl_gpu_tests --gtest_filter='ConvBwdGpu.*' --gtest_brief=1; grep -E "PASSED|FAILED" $R/conv_bwd_tests.log | head; save
left=$(( 560 - ($(date +%s) - t0) ))
if (( left > 60 )); then
  t dense $((left + 10)) $B/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget $((left - 15)) --out $R --label bwd_data_dense
  grep -E "^\| bwd_data dense" $R/bwd_data_dense.md | cut -c1-300
fi
save; echo done after $(( $(date +%s) - t0 )) s
