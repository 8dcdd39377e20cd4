#!/usr/bin/env bash
# Session 67, call 2 (the warm machine of call 1, which had run
# ../../h100-2026-12-07-decode-cluster-combine/calls/call_de.sh and measured 367 of the 702 fp16 shapes):
# the rest of the fp16 sweep, resumed from call 1's JSON lines copied to sweep-results/ before the call.
SWEEP_BUDGET=540 SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh fp16 > $OUT/sweep.log 2>&1
echo rc=$?; tail -12 $OUT/sweep.log
