#!/usr/bin/env bash
# Session 65, one call for two records (a machine start saved): the decode plan's call D, then the fp16 GEMM
# sweep (call E) in the time left under the 600 s limit (it resumes where it stops: benchmarks/sweep.sh).
t0=$(date +%s)
bash docs/perf/h100-2026-12-07-decode-cluster-combine/calls/call_d.sh
left=$(( 570 - ($(date +%s) - t0) ))
echo "sweep budget ${left} s"
SWEEP_BUDGET=$left bash docs/perf/h100-2026-12-07-gemm-fp16-sweep/calls/call_e.sh
