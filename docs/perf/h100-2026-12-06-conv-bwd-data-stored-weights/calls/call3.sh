#!/usr/bin/env bash
# Session 61, call 3: W as stored against the flipped copy, same binary, same machine: the bench in turns,
# KDECL_CONV_BWD_DATA_STORED_WEIGHTS unset (stored) and =0 (flipped copy), two rounds, --launch-cost; batch-1
# ResNet-50 3x3 and strided R3D-18 layers, strided ResNet-50 / R3D-18 layers at batch 32. The probe both ways.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s61c3; mkdir -p $R; B=.carry/bin; t0=$(date +%s); CSV=docs/perf/h100-2026-12-06-conv-bwd-data-stored-weights/calls/ab_rows.csv
save() { tar -C /tmp -cJf $OUT/results.tar.xz s61c3; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT > $R/commit.txt 2>/dev/null
for round in 1 2; do
  for v in stored copy; do
    [[ $v == copy ]] && export KDECL_CONV_BWD_DATA_STORED_WEIGHTS=0 || unset KDECL_CONV_BWD_DATA_STORED_WEIGHTS
    t ab_${v}_$round 60 $B/kdecl bench conv --problems $CSV --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label ab_${v}_$round
    grep -E "^\| bwd_data dense" $R/ab_${v}_$round.md | cut -c1-120
  done
  save
done
unset KDECL_CONV_BWD_DATA_STORED_WEIGHTS
t probe_stored 30 $B/kdecl_launch_cost_probe conv
KDECL_CONV_BWD_DATA_STORED_WEIGHTS=0 t probe_copy 30 $B/kdecl_launch_cost_probe conv
grep -E "^bwd|run\(\)|GPU time" $R/probe_stored.log $R/probe_copy.log | cut -c1-160
save; echo done after $(( $(date +%s) - t0 )) s
