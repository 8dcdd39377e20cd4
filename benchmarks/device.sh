#!/usr/bin/env bash
# One call on the GPU machine: the GPU test suites, a compute-sanitizer sample,
# and the GEMM benchmarks against cuBLAS. Binaries are built on the development
# machine (scripts/build.sh; nvcc 13, sm_80 + sm_90a) and carried in .carry/,
# together with the shared libraries the GPU machine lacks (see carry.sh).
#
#   benchmarks/device.sh [all|tests|bench|sweep|ops]  results in $OUT (or ./device-results)
#   (sweep: the public sweep of real models' shapes, in pieces: see benchmarks/sweep.sh;
#    ops: convolution and attention against cuDNN, in pieces: see benchmarks/bench_ops.sh)
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }  # the packed carry (benchmarks/carry.sh)
# The shipped selection models: the binaries look in the source tree they were built from (the
# same path on the GPU machine today, 2026-11-26), and here first in case it ever differs.
export KDECL_MODEL_DIR="$PWD/models"
what=${1:-all}
if [[ $what == sweep ]]; then shift; exec benchmarks/sweep.sh "${@:-all}"; fi
if [[ $what == ops ]]; then shift; exec benchmarks/bench_ops.sh "${@:-all}"; fi
out=${OUT:-device-results}
mkdir -p "$out/bench"
bin=.carry/bin
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KDECL_PLOT_SCRIPT="$PWD/benchmarks/plot_gemm_bench.py"
export KDECL_BENCH_DATE=$(date -u +%Y-%m-%d)
export KDECL_BENCH_COMMIT=$(cat .carry/COMMIT 2>/dev/null || echo unknown)
log() { echo "== $*" | tee -a "$out/summary.txt"; }

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv | tee "$out/gpu.txt"
status=0

if [[ $what == all || $what == tests ]]; then
  # kdecl_gpu_tests holds the conv kernels' tests, kdecl_fmha_gpu_tests the attention kernels'.
  for t in kdecl_gpu_tests kdecl_fmha_gpu_tests kdecl_fmha_decode_gpu_tests kdecl_gpu_sm80_tests kdecl_gpu_sm90_tests kdecl_gpu_sm90_lowp_tests \
           kdecl_gpu_alignment_tests kdecl_shipped_tests; do
    [[ -x $bin/$t ]] || { log "test $t: not carried"; status=1; continue; }
    log "test $t"
    timeout 300 "$bin/$t" --gtest_brief=1 > "$out/$t.log" 2>&1; rc=$?
    tail -n 4 "$out/$t.log" | tee -a "$out/summary.txt"
    ((rc == 0)) || status=1
  done
  log "SASS: the shipped sm_90 kernels use wgmma (HGMMA), the cp_async ones mma.sync (HMMA)"
  cuobjdump -sass "$bin/kdecl" > "$out/kdecl.sass" 2>&1
  echo "HGMMA: $(grep -c HGMMA "$out/kdecl.sass"), HMMA: $(grep -c ' HMMA' "$out/kdecl.sass")," \
       "local-memory ops (LDL/STL): $(grep -cE ' (LDL|STL)' "$out/kdecl.sass")" | tee -a "$out/summary.txt"
  grep -q HGMMA "$out/kdecl.sass" || status=1
  rm -f "$out/kdecl.sass"
  log "compute-sanitizer memcheck (sample)"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl_gpu_sm90_tests" \
      --gtest_filter='*Layouts*:*MultiD*' --gtest_brief=1 > "$out/sanitizer_sm90.log" 2>&1
  echo "sm90 sample: rc=$? $(grep -c 'ERROR SUMMARY: 0' "$out/sanitizer_sm90.log") clean summaries" | tee -a "$out/summary.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl_gpu_sm80_tests" \
      --gtest_filter='*Layout*:*Preshuffle*' --gtest_brief=1 > "$out/sanitizer_sm80.log" 2>&1
  echo "sm80 sample: rc=$? $(grep -c 'ERROR SUMMARY: 0' "$out/sanitizer_sm80.log") clean summaries" | tee -a "$out/summary.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl_gpu_tests" \
      --gtest_filter='ConvGpuInstances.MatchTheHostReference' --gtest_brief=1 > "$out/sanitizer_conv.log" 2>&1
  echo "conv sample: rc=$? $(grep -c 'ERROR SUMMARY: 0' "$out/sanitizer_conv.log") clean summaries" | tee -a "$out/summary.txt"
  compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/kdecl_fmha_decode_gpu_tests" \
      --gtest_filter='FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks:FmhaDecodeGpu.Fp8CachePerTensorAndPerHeadScales:FmhaAppendKvGpu.AppendThenDecode:FmhaPrefillGpu.ChunkedPrefillOverPages' \
      --gtest_brief=1 > "$out/sanitizer_decode.log" 2>&1
  echo "serving sample: rc=$? $(grep -c 'ERROR SUMMARY: 0' "$out/sanitizer_decode.log") clean summaries" | tee -a "$out/summary.txt"
fi

if [[ $what == all || $what == bench ]]; then
  k="$bin/kdecl bench gemm --out $out/bench --iters 100 --warmup 10"
  log "bench: bf16 and fp16 rcr squares"
  $k --dtype bf16 --layout rcr --sizes 4096 8192 --label gemm_bf16_rcr_square | tail -n 4
  $k --dtype fp16 --layout rcr --sizes 4096 8192 --label gemm_fp16_rcr_square | tail -n 4
  log "bench: small M (memory bound)"
  $k --dtype bf16 --layout rcr --ms 16 64 128 --ns 4096 --ks 4096 --label gemm_bf16_rcr_small_m_4096 | tail -n 5
  $k --dtype bf16 --layout rcr --ms 16 64 128 --ns 8192 --ks 8192 --label gemm_bf16_rcr_small_m_8192 | tail -n 5
  $k --dtype fp16 --layout rcr --ms 16 64 128 --ns 4096 --ks 4096 --label gemm_fp16_rcr_small_m_4096 | tail -n 5
  $k --dtype fp16 --layout rcr --ms 16 64 128 --ns 8192 --ks 8192 --label gemm_fp16_rcr_small_m_8192 | tail -n 5
  log "bench: multi_d gelu vs pass_through vs cuBLAS + elementwise"
  $k --dtype bf16 --layout rcr --sizes 4096 8192 --multi-d gelu:1 --fused-baseline --label gemm_bf16_rcr_multid_gelu | tail -n 4
  log "bench: the sm_80 path (cp_async) on this GPU"
  $k --dtype bf16 --layout rcr --sizes 4096 8192 --kernels pipeline=cp_async --label gemm_bf16_rcr_cp_async | tail -n 4
  $k --dtype fp16 --layout rcr --sizes 4096 8192 --kernels pipeline=cp_async --label gemm_fp16_rcr_cp_async | tail -n 4
  log "bench: fp8 (e4m3 -> bf16), int8 (-> int32) and tf32 on sm_90 wgmma vs cuBLASLt fp8 TN / int8 TN / FAST_TF32"
  $k --dtypes fp8,fp8,bf16 --layout rcr --sizes 4096 8192 --label gemm_fp8_rcr_square | tail -n 4
  $k --dtype int8 --layout rcr --sizes 4096 8192 --label gemm_int8_rcr_square | tail -n 4
  $k --dtype fp32 --compute tf32 --layout rcr --sizes 4096 8192 --label gemm_tf32_rcr_square | tail -n 4
  log "bench: other layouts"
  for l in rrr crr ccr; do
    $k --dtype bf16 --layout $l --sizes 4096 8192 --label gemm_bf16_${l}_square | tail -n 4
  done
  tar -C "$out" -czf "$out/bench.tar.gz" bench && rm -rf "$out/bench"
fi
exit $status
