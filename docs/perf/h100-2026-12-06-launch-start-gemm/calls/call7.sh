#!/usr/bin/env bash
# Session 57 call 7: the bf16 sweep's other shapes per launch (the sweep's method, --top 1), seeded with
# call 6's 150 weakest shapes (sweep-results/), as far as the budget goes.
set -uo pipefail
SWEEP_BUDGET=${SWEEP_BUDGET:-350} SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" benchmarks/sweep.sh bf16
echo "sweep rc=$?"
