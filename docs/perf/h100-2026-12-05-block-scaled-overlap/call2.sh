#!/usr/bin/env bash
# Call 2: Nsight Compute on one 4096^3 block-scaled launch of v0 and v3 (call1.sh's builds): tensor-pipe
# and shared-memory utilisation and warp stall reasons, to see what bounds the kernel.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for v in v3 v0; do
  timeout 120 $ncu --clock-control none --kernel-name regex:gemm_sm90 --launch-count 1 \
    --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    --section MemoryWorkloadAnalysis_Tables --section WarpStateStats --section SchedulerStats --section Occupancy \
    $bin/kdecl_$v run gemm --m 4096 --n 4096 --k 4096 --dtype fp8 --block-scaled --device cuda --check sampled \
    > "$out/ncu_$v.txt" 2>&1
  echo "$v rc=$?"
done
grep -E "Duration|Tensor|Shared|Issue Slots|Stall|Executed Ipc|L1/TEX Hit|Throughput" "$out/ncu_v3.txt" | head -40
