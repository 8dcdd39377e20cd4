#!/usr/bin/env bash
# The public sweep of real models' GEMM shapes (benchmarks/shapes/gemm_*.csv) against cuBLASLt on
# the GPU machine, in pieces that fit its per-command time limit. Each call measures what fits
# in its budget, appending one JSON line per problem as soon as it is measured, and resumes
# where the previous call stopped; every call leaves the JSON lines, the markdown report and
# the plot (so far) in $OUT/sweep/, with ranking_*.md: the dispatcher's ranking against the
# measured candidates (benchmarks/ranking_report.py).
#
#   benchmarks/sweep.sh [bf16|fp16|all] [more `kdecl bench gemm` options...]
#
# Binaries come from .carry/ as for device.sh (cmake --preset device && cmake --build --preset
# device && benchmarks/carry.sh build-device). Environment:
#   SWEEP_BUDGET  seconds this call may take (default 540, under the machine's 600 s limit)
#   SWEEP_DIR     where the JSON lines live between calls on a warm machine (default build-sweep/,
#                 git-ignored; a fresh machine starts without it)
#   SWEEP_SEED    results of earlier calls brought along (default sweep-results/: copy
#                 $OUT/sweep/*.jsonl there after each call and it travels with the working
#                 tree, so that a cold machine resumes too); merged into SWEEP_DIR first
#   SWEEP_FILTER  rows to measure, as `kdecl bench gemm --filter` (default: every row)
#   SWEEP_TIMING  timing options (default: --warmup 10 --iters 50 --target-ms 100 --top 6)
#   KDECL         the kdecl binary (default .carry/bin/kdecl)
# Exit status: 0 when every requested sweep is complete, 75 when some are not (call again),
# anything else on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }  # the packed carry (benchmarks/carry.sh)
# The shipped selection models: the binaries look in the source tree they were built from (the
# same path on the GPU machine today, 2026-11-26), and here first in case it ever differs.
export KDECL_MODEL_DIR="$PWD/models"
what=${1:-all}
shift || true
case $what in
  bf16|fp16) dtypes=($what) ;;
  all) dtypes=(bf16 fp16) ;;
  *) echo "usage: benchmarks/sweep.sh [bf16|fp16|all] [kdecl bench gemm options]" >&2; exit 2 ;;
esac
budget=${SWEEP_BUDGET:-540}
state=${SWEEP_DIR:-build-sweep}
seed=${SWEEP_SEED:-sweep-results}
out=${OUT:-device-results}/sweep
kdecl=${KDECL:-.carry/bin/kdecl}
read -r -a timing <<< "${SWEEP_TIMING:---warmup 10 --iters 50 --target-ms 100 --top 6}"
mkdir -p "$state" "$out"
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KDECL_PLOT_SCRIPT="$PWD/benchmarks/plot_gemm_bench.py"
export KDECL_BENCH_DATE=${KDECL_BENCH_DATE:-$(date -u +%Y-%m-%d)}
export KDECL_BENCH_COMMIT=${KDECL_BENCH_COMMIT:-$(cat .carry/COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)}
[[ -x $kdecl ]] || { echo "sweep: no $kdecl (build and carry it: see benchmarks/carry.sh)" >&2; exit 2; }
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
  --format=csv > "$out/gpu.txt" 2>&1

# Bring results of earlier calls along: the union of the seed's and the state's records, one per problem.
merge() { python3 benchmarks/merge_jsonl.py "$1" "$2"; }  # STATE ($2) becomes the union (its record wins)

status=0
for dt in "${dtypes[@]}"; do
  stem=sweep_${dt}_rcr
  [[ -f $seed/$stem.jsonl ]] && merge "$seed/$stem.jsonl" "$state/$stem.jsonl"
  left=$((budget - SECONDS))
  if ((left < 30)); then
    echo "== $stem: no time left in this call (budget ${budget}s); call again" | tee -a "$out/summary.txt"
    status=75
    continue
  fi
  echo "== $stem: up to ${left}s" | tee -a "$out/summary.txt"
  filter=()
  [[ -n ${SWEEP_FILTER:-} ]] && filter=(--filter "$SWEEP_FILTER")
  "$kdecl" bench gemm --problems benchmarks/shapes/gemm_*.csv --dtype "$dt" --layout rcr "${filter[@]}" \
      "${timing[@]}" --out "$state" --label "$stem" --resume --time-budget "$left" "$@" \
      > "$out/$stem.stdout.txt" 2> "$out/$stem.stderr.txt"
  rc=$?
  cat "$out/$stem.stdout.txt" | head -n 20 | tee -a "$out/summary.txt"
  grep -E "^kdecl:" "$out/$stem.stderr.txt" | tail -n 5 | tee -a "$out/summary.txt"
  case $rc in
    0) echo "== $stem: complete" | tee -a "$out/summary.txt" ;;
    75) echo "== $stem: stopped at the time budget; call again to go on" | tee -a "$out/summary.txt"; status=75 ;;
    *) echo "== $stem: failed (exit status $rc)" | tee -a "$out/summary.txt"; ((status == 0 || status == 75)) && status=$rc ;;
  esac
  cp "$state/$stem".{jsonl,json,md,png} "$out/" 2>/dev/null
  # How the dispatcher's ranking compares with the measured candidates (what to fit next).
  python3 benchmarks/ranking_report.py "$state/$stem.jsonl" > "$out/ranking_$stem.md" 2>/dev/null \
    && grep "^- " "$out/ranking_$stem.md" | tee -a "$out/summary.txt"
done
echo "== results in $out (copy $out/*.jsonl to $seed/ so that a fresh machine resumes from them)"
exit $status
