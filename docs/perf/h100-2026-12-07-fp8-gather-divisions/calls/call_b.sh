#!/usr/bin/env bash
# Session 64, call B: the 8-bit convolution's im2col gather without 64-bit divisions.
# (1) kdecl_gpu_im2col_tests (the gather against its definition, bit for bit, both decodes);
# (2) every fp8/bf8 -> bf16 kernel by name on an odd problem (kdecl run: the double host reference, the
#     output poisoned), memcheck on the stem (element-wise chunks) and a 3x3 layer (whole chunks);
# (3) `kdecl bench conv` fp8 and bf16 over ResNet-50's batch-32 layers (calls/resnet_b32.csv), as session 63.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s64b; mkdir -p $R; B=.carry/bin; K=$B/kdecl; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s64b; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
t im2col 60 $B/kdecl_gpu_im2col_tests; grep -E "OK \]|FAILED|Failure|first at" $R/im2col.log | head
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
  echo "$name: $out" >> $R/fp8_by_name.log
done < $R/fp8_kernels.txt
echo "fp8 by name: $(grep -c PASS $R/fp8_by_name.log) of $(wc -l < $R/fp8_kernels.txt) pass"; grep -v PASS $R/fp8_by_name.log | head -5; save
for args in "--n 2 --c 128 --k 256 --hw 14,14 --filter 3 --pad 1" "--n 3 --c 3 --k 64 --hw 37,41 --filter 7 --stride 2 --pad 3" \
            "--n 2 --c 24 --k 40 --g 2 --dhw 5,9,7 --filter 3 --stride 2 --pad 1 --dilation 1,2,1"; do
  name=fp8_$(echo "$args" | tr -dc 'a-z0-9' | cut -c1-40)
  t $name 40 $K run conv --dtype fp8 $args --device cuda; grep -E "check:|FAIL" $R/$name.log | cut -c1-200
done
t san_stem 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run conv --dtype fp8 --n 2 --c 3 --k 32 --hw 23,21 --filter 7 --stride 2 --pad 3 --device cuda
t san_3x3 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run conv --dtype fp8 --n 2 --c 64 --k 64 --hw 15,17 --filter 3 --pad 1 --device cuda
grep -hE "ERROR SUMMARY|check:" $R/san_*.log; save
CSV=docs/perf/h100-2026-12-07-fp8-gather-divisions/calls/resnet_b32.csv
for dt in fp8 bf16; do
  t bench_$dt 150 $K bench conv --problems $CSV --dtype $dt --direction fwd --device cuda --top 1 --out $R --label conv_$dt
  grep -E "^fwd|geomean" $R/bench_$dt.log | head -4
done
save; echo done after $(( $(date +%s) - t0 )) s
# The sm_90 attention kernels with every exponential on MUFU again (47e331b)
t fwd_tests 100 $B/kdecl_fmha_gpu_tests --gtest_filter='FmhaSm90Gpu.*'
grep -E "OK \]|FAILED|Failure" $R/fwd_tests.log | head; save
