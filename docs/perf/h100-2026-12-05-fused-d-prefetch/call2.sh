#!/usr/bin/env bash
# Call 2: Nsight Compute on ResNet-50 layer2.0.conv3 at batch 32 (1x1, 128 -> 512 channels, 28x28), the same
# 128x128 tile plain and with bias + relu fused (call 1's `kdecl`), to see where the fused epilogue's time goes.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
tile=tma_wgmma_cshuffle_intrawave_128x128x64_8x1x1_16x128x16_s6_v8x8x8_sm_90
for form in plain fused; do
  if [[ $form == plain ]]; then k=conv_fwd_2d_bf16_nhwgc_$tile; flags=""; else k=conv_fwd_2d_bf16_nhwgc_fused-bias-relu_$tile; flags="--bias --activation relu"; fi
  timeout 150 $ncu --clock-control none --kernel-name regex:conv --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section ComputeWorkloadAnalysis --section SourceCounters \
    $bin/kdecl run conv --n 32 --c 128 --k 512 --hw 28,28 --filter 1 --dtype bf16 $flags --device cuda --kernel $k > "$out/ncu_$form.txt" 2>&1
  echo "$form rc=$?"
  grep -E "Duration|Compute \(SM\)|Memory Throughput|DRAM Throughput|Issue Slots|Warp Cycles Per Issued|Local Memory Spilling Requests  " "$out/ncu_$form.txt" | head -12
done
