#!/usr/bin/env bash
# kdecl's convolution and attention kernels against cuDNN on the GPU machine, over the public
# layer and shape lists (benchmarks/shapes/conv_*.csv, fmha_*.csv), in pieces that fit its
# per-command time limit: `kdecl bench conv` (every direction; directions kdecl has no GPU kernel
# for are timed for cuDNN and recorded as "no kdecl kernel") and `kdecl bench fmha` (bf16 and
# fp16). Each call measures what fits in its budget, appending one JSON line per problem as soon
# as it is measured, and resumes where the previous call stopped; every call leaves the JSON
# lines, the markdown reports and the plots (so far) in $OUT/bench_ops/.
#
#   benchmarks/bench_ops.sh [conv|fmha|all] [more `kdecl bench` options...]
#   benchmarks/bench_ops.sh smoke   one small problem per bench and direction (about a minute): says
#                                   whether cuDNN loads and gets timed here, before a long run
#
# Binaries come from .carry/ as for device.sh (cmake --preset device &&
# cmake --build --preset device --target kdecl_tool && benchmarks/carry.sh build-device).
# cuDNN: libcudnn.so.9 and its sub-libraries come from the machine's PyTorch (the nvidia-cudnn
# wheel), put first on LD_LIBRARY_PATH; kdecl links libcudnn.so.9 normally (cuDNN keeps its ABI
# within a major version; a mismatch is reported per problem as "cudnn_missing").
# Environment:
#   BENCH_BUDGET   seconds this call may take (default 540, under the machine's 600 s limit)
#   BENCH_DIR      where the JSON lines live between calls on a warm machine (default
#                  build-bench-ops/, git-ignored; a fresh machine starts without it)
#   BENCH_SEED     results of earlier calls brought along (default bench-ops-results/: copy
#                  $OUT/bench_ops/*.jsonl there after each call so that a cold machine resumes)
#   BENCH_CONV_FILTER, BENCH_FMHA_FILTER   `--where` of each bench (default: every problem),
#                  e.g. BENCH_CONV_FILTER='direction=fwd,class=depthwise|grouped'
#   BENCH_DIRECTIONS  conv directions (default all)
#   BENCH_DTYPES   fmha dtypes (default bf16,fp16); conv dtype: BENCH_CONV_DTYPE (default bf16),
#                  and BENCH_CONV_COMPUTE=tf32 for fp32 multiplied in tf32 (cuDNN with default math)
#   BENCH_TIMING   timing options (default: --warmup 5 --iters 30 --target-ms 60 --top 3)
#   CUDNN_LIB      folder holding libcudnn.so.9 (default: PyTorch's nvidia.cudnn package's lib/)
#   NVRTC_LIB      folder holding libnvrtc.so.* for cuDNN's runtime-compiled engines (default: found
#                  in the same Python environment's nvidia/ packages, if any)
#   KDECL          the kdecl binary (default .carry/bin/kdecl)
#   KDECL_MODEL_DIR  the selection models (default models/ of this tree)
# Exit status: 0 when every requested bench is complete, 75 when some are not (call again),
# anything else on failure.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }  # the packed carry (benchmarks/carry.sh)
# The shipped selection models: the binaries look in the source tree they were built from (the
# same path on the GPU machine today, 2026-11-26), and here first in case it ever differs.
# A KDECL_MODEL_DIR already set (a model retrained on the machine) is kept.
export KDECL_MODEL_DIR="${KDECL_MODEL_DIR:-$PWD/models}"
what=${1:-all}
shift || true
case $what in
  conv|fmha) ops=($what) ;;
  all) ops=(conv fmha) ;;
  smoke) ops=() ;;
  *) echo "usage: benchmarks/bench_ops.sh [conv|fmha|all|smoke] [kdecl bench options]" >&2; exit 2 ;;
esac
budget=${BENCH_BUDGET:-540}
state=${BENCH_DIR:-build-bench-ops}
seed=${BENCH_SEED:-bench-ops-results}
out=${OUT:-device-results}/bench_ops
kdecl=${KDECL:-.carry/bin/kdecl}
read -r -a timing <<< "${BENCH_TIMING:---warmup 5 --iters 30 --target-ms 60 --top 3}"
mkdir -p "$state" "$out"
log() { echo "== $*" | tee -a "$out/summary.txt"; }
[[ -x $kdecl ]] || { echo "bench_ops: no $kdecl (build and carry it: see benchmarks/carry.sh)" >&2; exit 2; }

# cuDNN of the machine's PyTorch (and NVRTC for its runtime-compiled engines), ahead of the carried
# front library (.carry/lib).
source benchmarks/vendor_libs.sh
if [[ -n $cudnn ]]; then
  log "cuDNN from $cudnn: $(ls "$cudnn" | grep -E '^libcudnn(_graph)?\.so\.9' | tr '\n' ' ')${nvrtc:+; NVRTC from $nvrtc}"
  export LD_LIBRARY_PATH="$vendor_library_path"
else
  log "no libcudnn.so.9 found (CUDNN_LIB, or python3's nvidia.cudnn package): cuDNN is not timed (each record says why)"
  export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
# A kdecl built without CUDA (or a future set still under instances/unverified/ without
# -DKDECL_UNVERIFIED_SETS=ON) has no GPU conv/fmha kernel, and every record would say "no kdecl kernel".
gpu_kernels=$("$kdecl" list 2>/dev/null | grep -cE '^(conv|fmha)_[^ ]*_sm_(80|90) ')
if ((gpu_kernels == 0)); then
  log "WARNING: $kdecl has no GPU conv/fmha kernels (a CUDA build of the device preset has them): only cuDNN gets timed"
else
  log "$kdecl: $gpu_kernels GPU conv/fmha kernels registered"
fi
export KDECL_PLOT_SCRIPT="$PWD/benchmarks/plot_gemm_bench.py"  # the plot scripts beside it are found too
export KDECL_BENCH_DATE=${KDECL_BENCH_DATE:-$(date -u +%Y-%m-%d)}
export KDECL_BENCH_COMMIT=${KDECL_BENCH_COMMIT:-$(cat .carry/COMMIT 2>/dev/null || git rev-parse HEAD 2>/dev/null || echo unknown)}
command -v nvidia-smi > /dev/null && nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit \
  --format=csv > "$out/gpu.txt" 2>&1

# Bring results of earlier calls along: the union of the seed's and the state's records, one per problem.
merge() { python3 benchmarks/merge_jsonl.py "$1" "$2"; }  # STATE ($2) becomes the union (its record wins)

status=0
if [[ $what == smoke ]]; then
  smoke=$out/smoke
  rm -rf "$smoke"
  "$kdecl" bench conv --n 8 --c 64 --k 64 --hw 56,56 --filter 3 --pad 1 --dtype bf16 --directions all \
      --warmup 3 --iters 10 --top 1 --out "$smoke" --label conv "$@" > "$smoke.conv.txt" 2>&1 || status=$?
  "$kdecl" bench fmha --b 2 --hq 16 --hkv 4 --sq 1024 --d 128 --mask causal --dtype bf16 \
      --warmup 3 --iters 10 --top 1 --out "$smoke" --label fmha "$@" > "$smoke.fmha.txt" 2>&1 || status=$?
  for t in conv fmha; do
    log "smoke $t:"
    grep -E '^\| (fwd|bwd|bf16)' "$smoke.$t.txt" | head -n 8 | tee -a "$out/summary.txt"
    python3 -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(" ", r["key"][:70], "| kdecl:", r.get("dispatcher", {}).get("ms", r.get("kdecl_missing", "-")),
          "| cuDNN:", r.get("cudnn", {}).get("ms", r.get("cudnn_missing", r.get("run_error", "-"))))' \
      "$smoke/$t.jsonl" 2>&1 | tee -a "$out/summary.txt"
  done
  exit $status
fi
for op in "${ops[@]}"; do
  if [[ $op == conv ]]; then
    stem=conv_${BENCH_CONV_DTYPE:-bf16}${BENCH_CONV_COMPUTE:+_$BENCH_CONV_COMPUTE}
    args=(--problems benchmarks/shapes/conv_*.csv --dtype "${BENCH_CONV_DTYPE:-bf16}" --directions "${BENCH_DIRECTIONS:-all}")
    [[ -n ${BENCH_CONV_COMPUTE:-} ]] && args+=(--compute "$BENCH_CONV_COMPUTE")
    [[ -n ${BENCH_CONV_FILTER:-} ]] && args+=(--where "$BENCH_CONV_FILTER")
  else
    stem=fmha_$(tr ',' '_' <<< "${BENCH_DTYPES:-bf16,fp16}")
    args=(--problems benchmarks/shapes/fmha_*.csv --dtype "${BENCH_DTYPES:-bf16,fp16}")
    [[ -n ${BENCH_FMHA_FILTER:-} ]] && args+=(--where "$BENCH_FMHA_FILTER")
  fi
  [[ -f $seed/$stem.jsonl ]] && merge "$seed/$stem.jsonl" "$state/$stem.jsonl"
  left=$((budget - SECONDS))
  if ((left < 30)); then
    log "$stem: no time left in this call (budget ${budget}s); call again"
    status=75
    continue
  fi
  log "$stem: up to ${left}s"
  "$kdecl" bench "$op" "${args[@]}" "${timing[@]}" --out "$state" --label "$stem" --resume --time-budget "$left" "$@" \
      > "$out/$stem.stdout.txt" 2> "$out/$stem.stderr.txt"
  rc=$?
  head -n 30 "$out/$stem.stdout.txt" | tee -a "$out/summary.txt"
  grep -E "^kdecl:" "$out/$stem.stderr.txt" | tail -n 5 | tee -a "$out/summary.txt"
  case $rc in
    0) log "$stem: complete" ;;
    75) log "$stem: stopped at the time budget; call again to go on"; status=75 ;;
    *) log "$stem: failed (exit status $rc)"; ((status == 0 || status == 75)) && status=$rc ;;
  esac
  cp "$state/$stem".{jsonl,json,md,png} "$out/" 2>/dev/null
done
log "results in $out (copy $out/*.jsonl to $seed/ so that a fresh machine resumes from them)"
exit $status
