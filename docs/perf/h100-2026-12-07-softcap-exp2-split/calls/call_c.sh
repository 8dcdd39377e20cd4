#!/usr/bin/env bash
# Session 64, call C (the call-A carry again): Nsight Compute on the first Gemma 2 layer (27B, head dim 128,
# 8192 tokens) of kdecl_softcap_probe_p0 and _p4: the plain and the soft-capped kernel's pipe utilization
# (MUFU = XU, FMA, ALU, tensor), issue activity and warp stalls. Launches 0-1 are the check (warm-up + checked
# run on a small problem), 2 the plain kernel, 3 the soft-capped one.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
R=/tmp/s64c; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
NCU=$(ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | tail -1); NCU=${NCU:-$(command -v ncu)}
echo "ncu: $NCU"
M=gpu__time_duration.sum,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fmaheavy_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__issue_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,smsp__inst_executed_pipe_xu.sum
for p in p0 p4; do
  timeout 120 $NCU --metrics $M -k regex:tma_wgmma_ws_fmha --launch-skip 2 --launch-count 2 $B/kdecl_softcap_probe_$p > $R/metrics_$p.log 2>&1
  echo "metrics $p rc=$? after $(( $(date +%s) - t0 )) s"
  grep -E "tma_wgmma_ws_fmha_kernel|gpu__time|pct_of_peak|\.sum" $R/metrics_$p.log | sed -E 's/void kdecl::kernels::cuda::sm90::tma_wgmma_ws_fmha_kernel<kdecl::kernels::cuda::sm90::fmha_ws_traits<(.{0,120}).*/\1/' | cut -c1-150
done
timeout 150 $NCU --section WarpStateStats --section SchedulerStats -k regex:tma_wgmma_ws_fmha --launch-skip 2 --launch-count 2 $B/kdecl_softcap_probe_p0 > $R/stalls_p0.log 2>&1
echo "stalls rc=$? after $(( $(date +%s) - t0 )) s"
grep -E "tma_wgmma_ws_fmha_kernel|Stall|Issued Warp|No Eligible|Active Warps|Eligible Warps|Warp Cycles" $R/stalls_p0.log | sed -E 's/void kdecl.*fmha_ws_traits<(.{0,100}).*/\1/' | cut -c1-150
tar -C /tmp -cJf $OUT/results.tar.xz s64c; echo done after $(( $(date +%s) - t0 )) s
