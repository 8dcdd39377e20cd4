#!/usr/bin/env bash
# Session 58, call 2 (warm H100 after call 1): every dense backward-data row, as far as 150 s went (68 of 78).
bash benchmarks/unpack_carry.sh >/dev/null; source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
timeout 170 .carry/bin/kdecl bench conv --problems benchmarks/shapes/conv_*.csv --where class=dense --direction bwd_data \
  --dtype bf16 --top 1 --warmup 5 --iters 20 --time-budget 150 --out $OUT/full --label bwd_data_dense > $OUT/full.log 2>&1
