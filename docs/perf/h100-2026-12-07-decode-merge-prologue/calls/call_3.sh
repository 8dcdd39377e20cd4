#!/usr/bin/env bash
# Session 68, call 3 (typed as one command on the warm machine after calls 1 and 2, same carry): the whole
# decode table (batch 1-64 x 4k-64k) for the patched kernel and the base, two rounds each, cuDNN contiguous
# and paged in the turns; the fp8 cache for both kernels.
source benchmarks/call_prelude.sh pending3
for bin in new base new base; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t full_$bin 100 $B/kdecl_bench_decode$sfx --batch 1,2,4,8,16,32,64 --kv 4096,8192,16384,32768,65536 --reps 30
  cat $R/full_$bin.log >> $R/full_${bin}_all.log
  save
done
t full_new_fp8 60 $B/kdecl_bench_decode --batch 1,2,8,64 --kv 4096,16384,65536 --cache fp8 --reps 30
t full_base_fp8 60 $B/kdecl_bench_decode_base --batch 1,2,8,64 --kv 4096,16384,65536 --cache fp8 --reps 30
save
