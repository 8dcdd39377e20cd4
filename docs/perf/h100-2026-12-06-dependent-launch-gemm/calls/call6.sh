#!/usr/bin/env bash
# Session 56 call 6 (full build-device at the dependent-launch commit): GPU suites of the sm_90 GEMM path,
# then the 150 weakest bf16 sweep shapes timed back to back (kdecl bench --back-to-back), dependent
# launch off (KDECL_DEPENDENT_LAUNCH=0) and on, cuBLASLt in turns in each process.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
export KDECL_BENCH_DATE=$(date -u +%Y-%m-%d) KDECL_BENCH_COMMIT=$(cat .carry/COMMIT)
t0=$(date +%s)
R=/tmp/s56c6; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s56c6; }
left() { echo $(( ${BUDGET:-420} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; tail -3 $R/$name.log | head -2; }
t sm90 90 $B/kdecl_gpu_sm90_tests --gtest_brief=1
t lowp 60 $B/kdecl_gpu_sm90_lowp_tests --gtest_brief=1
t shipped 150 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*'
t alignment 40 $B/kdecl_gpu_alignment_tests --gtest_brief=1
t conv_bwd 40 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvBwdGpu.Every*'
save
for mode in off on; do
  div=1; [[ $mode == off ]] && div=2
  l=$(( ($(left) - 10) / div ))
  ((l > 20)) || break
  env $([[ $mode == off ]] && echo KDECL_DEPENDENT_LAUNCH=0) $B/kdecl bench gemm --problems .dev/s56/weak150_bf16.csv \
    --dtype bf16 --layout rcr --warmup 10 --iters 50 --target-ms 100 --top 1 --back-to-back \
    --out $R/b2b --label weak150_pdl_$mode --time-budget $l > $R/b2b_$mode.log 2>&1
  echo "b2b $mode rc=$? after $(( $(date +%s) - t0 )) s"; head -12 $R/b2b_$mode.log
  save
done
