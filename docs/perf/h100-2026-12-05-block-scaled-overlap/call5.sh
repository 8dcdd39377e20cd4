#!/usr/bin/env bash
# Call 5: compute-sanitizer memcheck on the shipped two-partial-set block-scaled kernels (call 4's build: its
# plain kernels are main's code) at 333 x 650 x 1008 (partial tiles, a partial last scale block) and batch 2.
# Carry: as call 4.
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${OUT:-device-results}; mkdir -p "$out"
benchmarks/unpack_carry.sh || exit 2
source benchmarks/vendor_libs.sh
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR="$PWD/models"
bin=.carry/bin
for k in intrawave_128x128x128_8x1x1_16x128x32_s6 pingpong_64x128x128_4x1x1_16x128x32_s8 \
         intrawave_64x128x128_4x1x1_16x128x32_s8 intrawave_64x64x128_4x1x1_16x64x32_s12; do
  name=gemm_fp8-fp8-bf16-fp32-fp8_rcr_blockscaled_tma_wgmma_cshuffle_${k}_v16_padmnk_sm_90
  [[ $k == *64x64x128* ]] && name=${name/16x128x32/16x64x32}
  timeout 100 compute-sanitizer --tool memcheck $bin/kdecl run gemm --m 333 --n 650 --k 1008 --batch 2 --dtype fp8 \
    --block-scaled --device cuda --kernel $name > "$out/memcheck_$k.log" 2>&1
  echo "$k rc=$?"; tail -n 3 "$out/memcheck_$k.log"
done
