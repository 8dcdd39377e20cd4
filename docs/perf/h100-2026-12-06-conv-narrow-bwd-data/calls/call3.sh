#!/usr/bin/env bash
# Session 59, call D: every dense backward-data row on 73e226b (the narrow-channel path with its fixes), --top 1.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/d; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
timeout 340 $B/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget 315 --out $R --label bwd_data_dense > $R/dense.log 2>&1
echo "dense rc=$? after $(( $(date +%s) - t0 )) s"
grep -E "^\| bwd_data dense" $R/bwd_data_dense.md | cut -c1-300
tar -C /tmp -cJf $OUT/results.tar.xz d
