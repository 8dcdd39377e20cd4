#!/usr/bin/env bash
# Call 3: the block-scaled mainloop with two partial sets (v3 of call 1) plus 2x1 / 1x2 multicast clusters
# for the 128x128 tile (`kdecl`), against call 1's v3 build (`kdecl_v3`, no clusters): every instance timed
# (--top 0), squares and DeepSeek-V3's projections (benchmarks/shapes/blockscaled_deepseek_v3.csv); then the
# new build's correctness: every shipped block-scaled kernel against the reference, misaligned problems,
# compute-sanitizer on the cluster kernels at K = 1008 (a partial last scale block; M and N leave the last cluster half-empty).
# Carry: benchmarks/carry.sh build-conv tools/kdecl tools/kdecl_v3 tests/kdecl_gpu_tests tests/kdecl_gpu_alignment_tests
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/call3.tgz" .; }
say() { echo "$*" | tee -a "$work/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$work/summary.txt"
cat .carry/COMMIT >> "$work/summary.txt"
for v in kdecl kdecl_v3; do
  timeout 80 $bin/$v bench gemm --sizes 2048 4096 8192 --dtype fp8 --block-scaled --device cuda --top 0 \
    --out "$work/squares_$v" > "$work/squares_$v.log" 2>&1
  say "$v squares rc=$?"; grep -E "^\| [0-9]" "$work/squares_$v.log" >> "$work/summary.txt"; save
done
for v in kdecl_v3 kdecl; do
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
