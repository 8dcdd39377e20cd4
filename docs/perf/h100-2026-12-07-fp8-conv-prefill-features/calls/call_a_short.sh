#!/usr/bin/env bash
# Session 63, call A (trimmed to ~250 s: correctness only): the new kernels' first GPU run.
# (1) fp8/bf8 forward convolutions on sm_90: each fp8/bf8 -> bf16 kernel by name on an odd problem of its rank and
#     layout (kdecl run --kernel: the double host reference, the result poisoned), the dispatcher on a stem, a 1x1 and a
#     grouped 3-D layer, memcheck on the three operand routes; (2) batch_prefill with soft-cap and sinks
#     (FmhaPrefillGpu.*), memcheck/racecheck, its cost against the plain kernel; (3) every conv kernel on the odd
#     problems (ConvGpuInstances.MatchTheHostReference: the mixed fp8 kernels, the new 1x1 s1 problem) with what is left.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s63a; mkdir -p $R; B=.carry/bin; K=$B/kdecl; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s63a; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
# --- fp8 convolutions, each kernel by name
$K list 2>/dev/null | awk '{print $1}' | grep -E '^conv_fwd_.d_(fp8-fp8|bf8-bf8)-bf16.*tma_wgmma' > $R/fp8_kernels.txt
while read -r name; do
  dt=fp8; [[ $name == *bf8-bf8* ]] && dt=bf8
  lay=$(echo $name | cut -d_ -f5)
  case $name in
    conv_fwd_1d*) size="--n 3 --c 5 --k 7 --w 29 --filter 3 --pad 1";;
    conv_fwd_3d*) size="--n 2 --c 32 --k 48 --g 2 --dhw 4,7,6 --filter 3 --pad 1";;
    *) size="--n 2 --c 3 --k 32 --hw 23,21 --filter 3 --stride 2 --pad 1";;
  esac
  out=$(timeout 30 $K run conv --dtype $dt --layout $lay $size --kernel $name --device cuda 2>&1 | grep -E "check:|FAIL|rror" | head -2)
  echo "$name: $out" | tee -a $R/fp8_by_name.log | cut -c1-220
done < $R/fp8_kernels.txt
echo "fp8 by name after $(( $(date +%s) - t0 )) s"; save
for args in "--n 2 --c 64 --k 96 --hw 15,17 --filter 1" "--n 2 --c 128 --k 256 --hw 14,14 --filter 3 --pad 1 --dtype bf8" \
            "--n 3 --c 3 --k 64 --hw 37,41 --filter 7 --stride 2 --pad 3"; do
  name=fp8_$(echo "$args" | tr -dc 'a-z0-9' | cut -c1-40)
  t $name 40 $K run conv --dtype fp8 $args --device cuda; grep -E "kernel:|check:|FAIL" $R/$name.log | cut -c1-200
done
t san_fp8_stem 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run conv --dtype fp8 --n 2 --c 3 --k 32 --hw 23,21 --filter 3 --stride 2 --pad 1 --device cuda
t san_fp8_1x1 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run conv --dtype fp8 --n 2 --c 64 --k 80 --hw 9,11 --filter 1 --device cuda
grep -hE "ERROR SUMMARY|check:" $R/san_fp8_*.log; save
# --- attention: batch_prefill with soft-cap and sinks
t prefill_tests 120 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaPrefillGpu.*' --gtest_brief=0
grep -E "^\s+(soft|sinks)|OK \]|FAILED|Failure|bad values" $R/prefill_tests.log | head -30; save
t san_memcheck_cap 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run fmha --paged --kv-lengths 700,64,0,129 --prefill 200 --mask causal --softcap 30 --device cuda
grep -hE "ERROR SUMMARY|check:|RACECHECK SUMMARY" $R/san_memcheck_cap.log; save
left=$(( 250 - ($(date +%s) - t0) ))
if (( left > 40 )); then
  t conv_tests $left $B/kdecl_gpu_tests --gtest_filter='ConvGpuInstances.MatchTheHostReference' --gtest_brief=1
  grep -E "convolution kernels for|PASSED|FAILED|Failure" $R/conv_tests.log | head -20
fi
save; echo done after $(( $(date +%s) - t0 )) s
