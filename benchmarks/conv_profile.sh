#!/usr/bin/env bash
# Where an sm_90 convolution loses to cuDNN, on the GPU machine: each layer timed against cuDNN
# (kdecl bench conv), then Nsight Compute on it: the full set on the dispatcher's kernel (a kernel-name
# regex picks it, e.g. halo for the stride-1 halo tiles), and the launch / throughput / compute sections
# on every kernel of a cuDNN run (its find phase included; its chosen plan is the one repeated at the end).
#
#   benchmarks/conv_profile.sh KERNEL_REGEX NAME='kdecl bench conv flags' [NAME='...' ...]
#   e.g. benchmarks/conv_profile.sh halo \
#          l1_fwd='--n 32 --c 128 --k 128 --hw 282,282 --filter 3 --dtype bf16 --direction fwd'
#
# Binaries from .carry/ (benchmarks/carry.sh BUILD tools/kdecl; a build with -DKDECL_INSTANCE_FILTER=conv_ is
# enough). cuDNN and NVRTC come from the machine's PyTorch (benchmarks/vendor_libs.sh). Writes $OUT/conv_profile/:
# NAME.log and NAME.md (bench), ncu/ours_NAME.txt, ncu/cudnn_NAME.txt (details pages) and the .ncu-rep files.
# Each step has its own time limit (PROFILE_STEP_S, default 150 s); what finished is kept.
set -uo pipefail
cd "$(dirname "$0")/.."
(($# >= 2)) || { echo "usage: benchmarks/conv_profile.sh KERNEL_REGEX NAME='bench conv flags' ..." >&2; exit 2; }
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh > /dev/null || exit 2; }
rx=$1; shift
B=$PWD/.carry/bin
export KDECL_MODEL_DIR="${KDECL_MODEL_DIR:-$PWD/models}"
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path"
R=${OUT:-device-results}/conv_profile; mkdir -p "$R/ncu"
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1); NCU=${NCU:-$(command -v ncu)}
step=${PROFILE_STEP_S:-150}
t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > "$R/gpu.csv"
for spec in "$@"; do
  name=${spec%%=*}; read -r -a flags <<< "${spec#*=}"
  timeout "$step" "$B/kdecl" bench conv "${flags[@]}" --warmup 3 --iters 20 --top 3 --out "$R" --label "$name" \
    > "$R/$name.log" 2>&1
  echo "bench $name rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "^\| (fwd|bwd)" "$R/$name.md" 2>/dev/null | cut -c1-400
  prof() {  # which, kernel regex, count, ncu options...
    local which=$1 krx=$2 count=$3; shift 3
    timeout "$step" "$NCU" --clock-control none "$@" -k "regex:$krx" --launch-count "$count" -o "$R/ncu/${which}_$name" -f \
      "$B/kdecl" bench conv "${flags[@]}" --warmup 1 --iters 3 --top 1 --out "$R/ncu" --label "${which}_$name" \
      > "$R/ncu/${which}_$name.log" 2>&1
    echo "ncu ${which}_$name rc=$? after $(( $(date +%s) - t0 )) s"
    "$NCU" --import "$R/ncu/${which}_$name.ncu-rep" --page details --print-units base > "$R/ncu/${which}_$name.txt" 2>&1
  }
  prof ours "$rx" 1 --set full --launch-skip 2
  prof cudnn '.' 120 --section SpeedOfLight --section LaunchStats --section ComputeWorkloadAnalysis
  grep -E "^  [a-z]|Duration|Registers|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Issue Slots Busy|Warp Cycles Per Issued|Grid Size|Dynamic Shared|Tensor|Stall" \
    "$R/ncu/ours_$name.txt" 2>/dev/null | head -40
done
