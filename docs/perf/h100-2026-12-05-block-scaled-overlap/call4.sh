#!/usr/bin/env bash
# Call 4: 2x1 / 1x2 multicast clusters for the 128x128 block-scaled tile again, now with one partial-sum set
# (scaled_partial_sets = 1: the producer keeps 40 registers, the consumers 232; no spills), beside the
# two-set plain tile in the same build: every instance timed (--top 0) on squares and DeepSeek-V3's
# projections; then the shipped block-scaled kernels against the reference, misaligned problems, and
# compute-sanitizer on the cluster kernels at 333 x 650 x 1008 (a partial last scale block; M and N leave the
# last cluster half-empty).
# Carry: benchmarks/carry.sh build-conv tools/kdecl tests/kdecl_gpu_tests tests/kdecl_gpu_alignment_tests
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/call4.tgz" .; }
say() { echo "$*" | tee -a "$work/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$work/summary.txt"
cat .carry/COMMIT >> "$work/summary.txt"
for v in kdecl; do
  timeout 80 $bin/$v bench gemm --sizes 2048 4096 8192 --dtype fp8 --block-scaled --device cuda --top 0 \
    --out "$work/squares_$v" > "$work/squares_$v.log" 2>&1
  say "$v squares rc=$?"; grep -E "^\| [0-9]" "$work/squares_$v.log" >> "$work/summary.txt"; save
done
for v in kdecl; do
  timeout 100 $bin/$v bench gemm --problems benchmarks/shapes/blockscaled_deepseek_v3.csv --dtype fp8 --block-scaled \
    --device cuda --top 0 --out "$work/deepseek_$v" > "$work/deepseek_$v.log" 2>&1
  say "$v deepseek rc=$?"; grep -E "^\| [0-9]|geometric|worst" "$work/deepseek_$v.log" >> "$work/summary.txt"; save
done
[[ ${BENCH_ONLY:-0} == 1 ]] && { cat "$work/summary.txt"; exit 0; }
timeout 100 $bin/kdecl_gpu_tests --gtest_filter='ShippedGpuInstances.MatchTheHostReference' > "$work/gemm_gpu_tests.log" 2>&1
say "shipped gpu tests rc=$?"; grep -E "runs checked|PASSED|FAILED" "$work/gemm_gpu_tests.log" | head -20 >> "$work/summary.txt"; save
timeout 60 $bin/kdecl_gpu_alignment_tests --gtest_filter='AlignmentGpu.EveryNarrowKernelRunsMisalignedData:AlignmentGpu.Random*' > "$work/alignment_gpu_tests.log" 2>&1
say "alignment gpu tests rc=$?"; grep -E "PASSED|FAILED|OK" "$work/alignment_gpu_tests.log" | head >> "$work/summary.txt"; save
for c in c2x1 c1x2; do
  k=gemm_fp8-fp8-bf16-fp32-fp8_rcr_blockscaled_tma_wgmma_cshuffle_intrawave_128x128x128_8x1x1_16x128x32_s6_v16_${c}_padmnk_sm_90
  timeout 100 compute-sanitizer --tool memcheck $bin/kdecl run gemm --m 333 --n 650 --k 1008 --dtype fp8 --block-scaled \
    --device cuda --kernel $k > "$work/memcheck_$c.log" 2>&1
  say "memcheck $c rc=$?"; tail -n 3 "$work/memcheck_$c.log" >> "$work/summary.txt"; save
done
cat "$work/summary.txt"
