#!/usr/bin/env bash
# Every depth split of the sm_90 backward-weight forced on a few layers (GPU machine, in the
# repository root with the carry of benchmarks/carry.sh build-device tools/kdecl):
#   bash benchmarks/bwd_weight_splits.sh [OUT=bwd-weight-splits] [SECONDS=420]
# KDECL_CONV_BWD_WEIGHT_SPLIT=CLUSTER,RANGES forces a split on the dispatcher's kernel ("planned":
# the split conv_bwd_plan.hpp picks). Writes OUT/forced_splits.jsonl as it goes (one `kdecl bench
# conv` record per layer and split, with "label" and "split") and OUT/forced_splits.png
# (benchmarks/plot_forced_splits.py). The fit of the plan's constants: src/conv_bwd_plan.cpp.
set -uo pipefail
cd "$(dirname "$0")/.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }
export LD_LIBRARY_PATH="$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export KDECL_MODEL_DIR="${KDECL_MODEL_DIR:-$PWD/models}"
out=${1:-bwd-weight-splits}
budget=${2:-420}
mkdir -p "$out"
k="$PWD/.carry/bin/kdecl"
rows=(
  "r3d18_l4_n32 --n 32 --c 512 --k 512 --dhw 2,7,7 --filter 3 --pad 1"
  "r3d18_l3_n32 --n 32 --c 256 --k 256 --dhw 4,14,14 --filter 3 --pad 1"
  "unet_512_n1 --n 1 --c 512 --k 512 --hw 66,66 --filter 3"
  "r3d18_l3down_n32 --n 32 --c 128 --k 256 --dhw 8,28,28 --filter 3 --stride 2 --pad 1"
  "unet_1024_n1 --n 1 --c 1024 --k 512 --hw 56,56 --filter 3"
  "r3d18_l2_n32 --n 32 --c 128 --k 128 --dhw 8,28,28 --filter 3 --pad 1"
  "r50_l4_n32 --n 32 --c 512 --k 512 --hw 7,7 --filter 3 --pad 1"
  "r50_l1_n32 --n 32 --c 64 --k 64 --hw 56,56 --filter 3 --pad 1"
)
end=$((SECONDS + budget))
n=0
for row in "${rows[@]}"; do
  set -- $row; label=$1; shift
  for split in planned 1,1 2,1 3,1 4,1 6,1 8,1 1,2 1,4 2,2 1,8; do
    ((SECONDS < end)) || { echo "time budget spent after $n measurements" >&2; break 2; }
    if [[ $split == planned ]]; then unset KDECL_CONV_BWD_WEIGHT_SPLIT; else export KDECL_CONV_BWD_WEIGHT_SPLIT=$split; fi
    timeout 60 "$k" bench conv --dtype bf16 --direction bwd_weight --top 1 --warmup 5 --iters 30 \
      --out /tmp/bwd_weight_splits --label one --overwrite "$@" > /tmp/bwd_weight_splits.log 2>&1
    python3 - "$label" "$split" /tmp/bwd_weight_splits/one.jsonl "$out/forced_splits.jsonl" <<'PY'
import json, sys
label, split, path, out = sys.argv[1:]
try:
    r = json.loads(open(path).readline())
    r['label'], r['split'] = label, split
    open(out, 'a').write(json.dumps(r) + '\n')
    print('%-18s %-8s %9.1f us (cuDNN %9.1f us)' % (label, split, r['dispatcher']['ms'] * 1e3, r['cudnn']['ms'] * 1e3))
except Exception as e:  # a refused or failed run: say so, go on
    print('%-18s %-8s no result: %s' % (label, split, e))
PY
    n=$((n + 1))
  done
done
unset KDECL_CONV_BWD_WEIGHT_SPLIT
python3 benchmarks/plot_forced_splits.py "$out/forced_splits.jsonl" "$out/forced_splits.png"
