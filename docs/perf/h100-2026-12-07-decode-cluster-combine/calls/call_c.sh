#!/usr/bin/env bash
# Session 65, call C: the split plan under one wave planned for 3 blocks per SM (the occupancy, today) against
# 2 blocks per SM (kdecl_bench_decode --stages 2 --plan-per-sm 2: the same kernel), batch 1 to 32, bf16 D 128,
# each launch after a 256 MiB write (dirty L2, the record's method) and after a 256 MiB read (clean L2).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s65c; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s65c; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
for flush in write read; do
  for round in 1 2; do
    for per in 3 2; do
      n=p${per}_${flush}_r$round
      t $n 120 $B/kdecl_bench_decode --batch 1,2,4,8,16,32 --kv 4096,8192,16384,32768,65536 --stages 2 --plan-per-sm $per \
        --flush $flush --cudnn 0 --reps 30
      grep -E "^ +[0-9]" $R/$n.log | sed "s/^/$n /"
      save
    done
  done
done
echo "done after $(( $(date +%s) - t0 )) s"
