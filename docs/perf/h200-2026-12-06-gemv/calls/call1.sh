#!/usr/bin/env bash
# Session 53, call 1 (one GPU; build-device: every shipped set plus the unverified gemv set, CUDA-core and
# this session's mma.sync kernels). First run of stop 52's work: the gemv kernels against the host reference,
# the device-pass guard (cp_async GEMM and sm_80 convolution bodies built only in passes of their key's major:
# a trap would name it), memcheck on two gemv kernels, then kdecl bench gemm over the models' layers with
# M <= 16 (bf16, rcr, every eligible kernel timed, cuBLASLt in turns), then the conv suites the guard touched.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s53c1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
save() { tar -C /tmp -cJf $OUT/results.tar.xz s53c1; }
run gemv_tests 60 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='GemvGpu.*'
run sm80_tests 60 $B/kdecl_gpu_sm80_tests --gtest_brief=1
run shipped_tests 75 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*'
run memcheck_gemv_mma_m13 30 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl run gemm --m 13 --n 1001 --k 1000 --dtype bf16 --device cuda --kernel gemm_bf16_rcr_gemv_direct_intrawave_16x16x512_1x1x4_16x8x32_s1_v16_padmnk_sm_90
run memcheck_gemv_m3 30 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl run gemm --m 3 --n 1001 --k 8200 --dtype bf16 --device cuda --kernel gemm_bf16_rcr_gemv_direct_intrawave_4x2x2048_1x1x4_1x1x256_s1_v16_padmnk_sm_90
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|check:|trap|illegal|runs checked" $f | head -12; done
save
# Small-M layers: every eligible kernel (gemv, TMA, cp_async) and cuBLASLt; JSON lines as each row is measured.
timeout 120 $B/kdecl bench gemm --problems benchmarks/shapes/gemm_llm_decoders.csv benchmarks/shapes/gemm_encoders_vision.csv \
  --filter 'm<=16' --dtype bf16 --layout rcr --top 0 --device cuda --out $R/bench --label small_m_bf16 > $R/bench.log 2>&1
echo "bench rc=$? after $(( $(date +%s) - t0 )) s"; tail -3 $R/bench.log
save
left=$(( 300 - ($(date +%s) - t0) ))
[[ -x $B/kdecl_gpu_alignment_tests ]] && (( left > 30 )) && run alignment_tests $(( left / 2 )) $B/kdecl_gpu_alignment_tests --gtest_brief=1
left=$(( 300 - ($(date +%s) - t0) ))
(( left > 30 )) && run conv_tests $left $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ConvGpuInstances.MatchTheHostReference:ConvBwdGpu.Every*'
grep -E "FAILED|PASSED|rc=|runs checked" $R/alignment_tests.log $R/conv_tests.log 2>/dev/null | head -20
save
