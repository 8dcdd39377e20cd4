#!/usr/bin/env bash
# Session 64, call D: the softmax's row maxima and sums in K independent partials (kdecl_softcap_probe_p0_cK,
# K = 1 as before, 2, 4, 8), each probe twice in an interleaved order; then Nsight Compute's scheduler and
# warp-state sections on K = 4 (call C took them on K = 1).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
R=/tmp/s64d; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
for round in 1 2; do
  for k in 1 4 2 8; do
    timeout 60 $B/kdecl_softcap_probe_p0_c$k $R/chains.jsonl > $R/probe_c${k}_r$round.log 2>&1
    echo "c$k round $round rc=$? after $(( $(date +%s) - t0 )) s"; grep -E "FAIL|cost" $R/probe_c${k}_r$round.log | cut -c1-120
  done
done
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1); NCU=${NCU:-$(command -v ncu)}
timeout 150 $NCU --section WarpStateStats --section SchedulerStats -k regex:tma_wgmma_ws_fmha --launch-skip 2 --launch-count 2 $B/kdecl_softcap_probe_p0_c4 > $R/stalls_c4.log 2>&1
echo "stalls rc=$? after $(( $(date +%s) - t0 )) s"
grep -E "tma_wgmma_ws_fmha_kernel|Issued Warp|No Eligible|Eligible Warps|Warp Cycles Per Issued|fixed latency|cycles being stalled" $R/stalls_c4.log | sed -E 's/void kdecl.*fmha_ws_traits<(.{0,60}).*/\1/' | cut -c1-150
tar -C /tmp -cJf $OUT/results.tar.xz s64d; echo done after $(( $(date +%s) - t0 )) s
