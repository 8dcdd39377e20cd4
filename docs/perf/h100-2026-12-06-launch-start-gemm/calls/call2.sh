#!/usr/bin/env bash
# Session 57, call 2 (binaries of 5e9e45e): Nsight Compute, full set with SASS-level stall sampling,
# on one launch each of cuBLAS and our tiles on 197x1024x4096 and 1024^3 (sm90_probe ncu), and on
# the batch-1 x 4k split-KV decode and its combine.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s57c2; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s57c2; }
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
$ncu --version > $R/ncu_version.txt 2>&1
export_rep() {  # $1 = report base name
  $ncu -i $R/$1.ncu-rep --page details > $R/$1.details.txt 2>&1
  $ncu -i $R/$1.ncu-rep --page source --csv --print-source sass > $R/$1.sass.csv 2> $R/$1.sass.err
  echo "$1: details $(wc -l < $R/$1.details.txt) lines, sass $(wc -l < $R/$1.sass.csv) lines"
  grep -E "^  [a-zA-Z_v].*Context|Duration|Elapsed Cycles|Warp Cycles Per Issued|Issue Slots Busy|L2 Cache Throughput|DRAM Throughput" $R/$1.details.txt | cut -c1-120 | head -12
}
# decode first (cheap)
timeout 120 $ncu --clock-control none --set full --import-source no -k regex:paged --launch-count 2 -o $R/decode \
  $B/kdecl_bench_decode --batch 1 --kv 4096 --reps 1 --cudnn 0 > $R/decode_ncu.log 2>&1
echo "decode rc=$?"; export_rep decode; save
# matching launches: per shape cuBLAS x3, 128x128 x3, 64x64 x3, 128x256 x3 (197x1024x4096: 0-11, 1024^3: 12-23)
for s in 3 0 15 12 18; do
  timeout 150 $ncu --clock-control none --set full --import-source no -k regex:"gemm_sm90|nvjet" \
    --launch-skip $s --launch-count 1 -o $R/gemm$s $B/kdecl_sm90_probe ncu > $R/gemm$s.log 2>&1
  echo "gemm launch $s rc=$?"; export_rep gemm$s; save
done
