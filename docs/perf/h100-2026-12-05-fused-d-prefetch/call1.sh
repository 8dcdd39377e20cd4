#!/usr/bin/env bash
# 2026-12-05, sixth session: the TMA-store epilogue reads a fused convolution's bias / residual one chunk
# ahead (epilogue_tma_store.cuh load_chunk_d). (1) the convolution GPU suites with it; (2) memcheck of a
# bias+residual+relu and a bias+relu sm_90 kernel; (3) ResNet-50 forward with bias + relu against cuDNN's
# fused graph, `kdecl_before` (the same build without the change) and `kdecl` in turns, twice.
# Carry: benchmarks/carry.sh build-conv tools/kdecl tools/kdecl_before tests/kdecl_gpu_tests
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
if [[ ${BENCH_ONLY:-0} != 1 ]]; then
  timeout 200 $bin/kdecl_gpu_tests --gtest_filter='ConvGpuInstances.*' > "$work/conv_gpu_tests.log" 2>&1
  say "ConvGpuInstances rc=$?"; grep -E "runs checked|PASSED|FAILED" "$work/conv_gpu_tests.log" | head -20 >> "$work/summary.txt"
  save
  for form in fused-bias-residual-relu fused-bias-relu; do
    kernel=$($bin/kdecl list 2>/dev/null | grep -o "conv_fwd_2d_bf16_nhwgc_${form}_tma_wgmma_[a-z_0-9x]*_sm_90" | head -1)
    extra=""; [[ $form == *residual* ]] && extra="--residual"
    timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $bin/kdecl run conv --n 3 --c 64 --k 136 --hw 19,23 \
        --filter 1 --dtype bf16 --bias $extra --activation relu --device cuda --kernel "$kernel" > "$work/memcheck_$form.log" 2>&1
    say "memcheck $kernel rc=$?"; grep -E "PASS|FAIL|ERROR SUMMARY" "$work/memcheck_$form.log" | head -3 >> "$work/summary.txt"
  done
  save
fi
for round in 1 2; do
  order="kdecl_before kdecl"; [[ $round == 2 ]] && order="kdecl kdecl_before"
  for v in $order; do
    timeout 110 $bin/$v bench conv --problems benchmarks/shapes/conv_resnet50.csv --directions fwd --dtype bf16 \
        --bias --activation relu --device cuda --out "$work/fused_${v}_r$round" > "$work/fused_${v}_r$round.log" 2>&1
    say "$v round $round rc=$?"; tail -n 6 "$work/fused_${v}_r$round.log" >> "$work/summary.txt"
    rm -f "$work/fused_${v}_r$round/"*.png
    save
  done
done
cat "$work/summary.txt"
