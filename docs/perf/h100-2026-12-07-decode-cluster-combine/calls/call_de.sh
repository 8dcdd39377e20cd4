#!/usr/bin/env bash
# Session 65, one call for two records (a machine start saved): the decode plan's call D, then the fp16 GEMM
# sweep (call E) in the time left of DE_TOTAL seconds (default 570, under the 600 s limit). The sweep's JSON
# lines are kept under $OUT as they are written (SWEEP_DIR), so a call cut short still returns them, and a later
# call resumes from them (benchmarks/sweep.sh, SWEEP_SEED).
t0=$(date +%s)
bash docs/perf/h100-2026-12-07-decode-cluster-combine/calls/call_d.sh
left=$(( ${DE_TOTAL:-570} - ($(date +%s) - t0) ))
echo "sweep budget ${left} s"
SWEEP_DIR=$OUT/sweep_state SWEEP_BUDGET=$left bash docs/perf/h100-2026-12-07-decode-cluster-combine/calls/call_e.sh
