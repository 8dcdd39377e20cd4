#!/usr/bin/env bash
# 2026-12-05, sixth session, call 1: three builds of the block-scaled fp8 mainloop against cuBLASLt:
#   kdecl_v0  as committed (68fdd28): scales loaded right before each k-block, wgmma_wait_group<0>
#   kdecl_v1  scales loaded one k-block ahead, still one partial set (wait<0> each k-block)
#   kdecl_v3  two partial sets (k-block kb+1 on the tensor cores while kb is promoted), scales one ahead,
#             producer 24 / consumers 240 registers for the two-consumer tile
# each timed twice in rotating order; then v3's correctness (the GPU tests are built with v3).
# Carry: benchmarks/carry.sh build-conv tools/kdecl tools/kdecl_v0 tools/kdecl_v1 tools/kdecl_v3 \
#          tests/kdecl_gpu_tests tests/kdecl_gpu_alignment_tests
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
work=$(mktemp -d)
save() { tar -C "$work" -czf "$out/call1.tgz" .; }
say() { echo "$*" | tee -a "$work/summary.txt"; }
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader > "$work/summary.txt"
cat .carry/COMMIT >> "$work/summary.txt"
for round in 1 2; do
  order="v0 v1 v3"; [[ $round == 2 ]] && order="v3 v1 v0"
  for v in $order; do
    timeout 80 $bin/kdecl_$v bench gemm --sizes 2048 4096 8192 --dtype fp8 --block-scaled --device cuda --out "$work/out_${v}_r$round" \
      > "$work/bench_${v}_r$round.log" 2>&1
    say "$v round $round rc=$?"; grep -E "^\| [0-9]" "$work/bench_${v}_r$round.log" >> "$work/summary.txt"
    save
  done
done
[[ ${BENCH_ONLY:-0} == 1 ]] && { cat "$work/summary.txt"; exit 0; }
timeout 90 $bin/kdecl_gpu_tests --gtest_filter='ShippedGpuInstances.MatchTheHostReference' > "$work/gemm_gpu_tests.log" 2>&1
say "shipped gpu tests (v3) rc=$?"; grep -E "runs checked|PASSED|FAILED|block_scaled" "$work/gemm_gpu_tests.log" | head -20 >> "$work/summary.txt"
save
timeout 90 $bin/kdecl_gpu_alignment_tests --gtest_filter='AlignmentGpu.*' > "$work/alignment_gpu_tests.log" 2>&1
say "alignment gpu tests (v3) rc=$?"; grep -E "PASSED|FAILED" "$work/alignment_gpu_tests.log" | head >> "$work/summary.txt"
save
cat "$work/summary.txt"
