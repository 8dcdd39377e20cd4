#!/usr/bin/env bash
# Pending call 2 (same carry as call 1; run it at once after call 1, while the machine is warm): the full
# decode table in turns with cuDNN (contiguous and paged) for the patched kernel and the base; every split
# count and ring depth on the 4k rows at batch 8-64; the kdecl CLI (main, unpatched) timing every eligible
# GEMM instance on 4096^3 and the sweeps' weakest shapes (gemm_probe.csv); the DSMEM reduction probe's
# first run. About 6-7 minutes.
set -uo pipefail
source benchmarks/call_prelude.sh pending2
for bin in new base; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t table_$bin 150 $B/kdecl_bench_decode$sfx --reps 30
done
# cuDNN's paged containers with each page's rows head by head (in case it refuses vLLM's row-major pages).
t table_new_hnd 100 $B/kdecl_bench_decode --batch 1,8,64 --kv 4096,32768 --cache-layout hnd --reps 30
save
# The 4k rows at batch 8-64 (0.79-0.85x cuDNN on d7dd083): every split count and ring depth, new kernel.
for st in 2 3 4; do
  for sp in auto 1 2 3 4 6 8; do
    $B/kdecl_bench_decode --batch 8,16,32,64 --kv 4096 --splits $sp --stages $st --reps 30 --cudnn 0 > $R/knob_st${st}_sp${sp}.log 2>&1
  done
done
echo "knobs after $(( $(date +%s) - t0 )) s"
save
# The CLI's paged bench (ours, the copy, cuDNN contiguous and paged, in turns since session 68): its first run.
t cli_paged 120 .carry/bin/kdecl bench fmha --paged --b 1,8,64 --skv 4096,32768 --reps 20
t cli_paged_window 60 .carry/bin/kdecl bench fmha --paged --b 8 --skv 16384 --sq 4 --mask window --window 4096,0 --reps 20
save
# The cluster split-K reduction's variants (benchmarks/dsmem_reduce_probe.cu, never run yet: pull, pull4,
# bulk push, through L2, none), each checked exact: what the few-tile long-K GEMMs' 2-4 us reduction could be.
t dsmem_reduce_probe 60 $B/kdecl_dsmem_reduce_probe
save
# GEMM (kdecl CLI at main, unpatched): every eligible instance on 4096^3 and the weakest shapes of the sweeps.
for dt in fp16 bf16; do
  t gemm_all_$dt 150 .carry/bin/kdecl bench gemm --dtype $dt --layout rcr --top 0 --time-budget 140 --out $R/gemm --label all_$dt \
    --problems docs/perf/pending/gemm_probe.csv  # as run; now calls/gemm_probe.csv beside this script
done
save
echo "done after $(( $(date +%s) - t0 )) s"
