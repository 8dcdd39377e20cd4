#!/usr/bin/env bash
# One call on the GPU machine: `kdecl tune <op>` over the tuning problems into a
# SQLite database in $OUT, resumed (a new process) if a kernel leaves the GPU in
# an error state, ending before the time budget; then a JSON-lines export.
# OP (third argument, default gemm): gemm (benchmarks/tuning/problems_sm90*.csv, or
# copies in the carry), conv (benchmarks/shapes/conv_*.csv, every direction, batches 1 and 32,
# bf16, or TUNE_CONV_DTYPE=fp32 with TUNE_CONV_COMPUTE=tf32 or unset) or fmha (benchmarks/shapes/fmha_*.csv, bf16 and fp16).
#
# On the development machine (the full sets take ~10 minutes to compile here):
#   cmake --preset tuning -DKDECL_BUILD_TESTS=OFF && cmake --build build-tuning --target kdecl_tool
#   benchmarks/carry.sh build-tuning   (carry .carryz; the problems files travel with the tree)
# On the GPU machine, in the repository root with .carryz/ (or .carry/) alongside:
#   bash benchmarks/tuning/device_tune.sh [.carry] [SECONDS=340] [gemm|conv|fmha]
# On a machine of several GPUs each tunes a share of the problems (kdecl tune --shard), in parallel.
# TUNE_ARGS adds options to every `kdecl tune` call, e.g. TUNE_ARGS="--confirm 6 --iters 12" (the
# shipped GEMM model's data: each problem's six leading kernels timed again in turns).
# (conv and fmha need only the device preset: benchmarks/carry.sh build-device.)
# Then, back here: kdecl train / kdecl eval-selection (docs/tuning.md).
set -uo pipefail
cd "$(dirname "$0")/../.."
[[ -d .carryz ]] && { benchmarks/unpack_carry.sh || exit 2; }  # the packed carry (benchmarks/carry.sh)
carry=${1:-.carry}
budget=${2:-340}
op=${3:-gemm}
out=${OUT:-tuning-results}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
k="$PWD/$carry/bin/kdecl"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > "$out/gpu.csv"
"$k" list --filter arch=sm_90 | tail -n 1 >> "$out/gpu.csv"
case $op in
  gemm) arch=sm90; problems=("$carry"/problems_sm90*.csv); extra=()
        [[ -f ${problems[0]} ]] || problems=(benchmarks/tuning/problems_sm90*.csv) ;;  # the tracked files
  conv) arch=conv_sm90; problems=(benchmarks/shapes/conv_*.csv)
        # TUNE_CONV_DTYPE=fp32 [TUNE_CONV_COMPUTE=tf32]: the fp32 kernels, into their own database.
        dt=${TUNE_CONV_DTYPE:-bf16}; extra=(--directions all --batches 1 32 --dtype "$dt")
        [[ $dt != bf16 ]] && arch=conv_${dt}${TUNE_CONV_COMPUTE:+_$TUNE_CONV_COMPUTE}_sm90
        [[ -n ${TUNE_CONV_COMPUTE:-} ]] && extra+=(--compute "$TUNE_CONV_COMPUTE") ;;
  fmha) arch=fmha_sm90; problems=(benchmarks/shapes/fmha_*.csv); extra=(--dtype bf16,fp16) ;;
  *) echo "device_tune.sh: OP '$op' is not gemm, conv or fmha" >&2; exit 2 ;;
esac
# Every GPU of the machine tunes its share of the problems (TUNE_GPUS to use fewer): GPU i takes
# `--shard i/N` into its own database, and the shards are merged into tuning_<arch>.db at the end.
gpus=${TUNE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')}
((gpus >= 1)) || gpus=1
db=$out/tuning_$arch.db
read -r -a more <<< "${TUNE_ARGS:-}"
extra+=("${more[@]}")
end=$((SECONDS + budget))
# One GPU's run: attempts of `kdecl tune` (a new process when a kernel leaves the GPU in an error
# state) until it finishes or the budget is spent.
tune_on() {  # GPU index, its database, its log
  local gpu=$1 shard_db=$2 log=$3 shard=() rc
  ((gpus > 1)) && shard=(--shard "$gpu/$gpus")
  # Rows of an earlier call (its JSON-lines export, carried as $carry/seed_tuning_<arch>.jsonl) are
  # imported first, so that a fresh machine resumes where the last one stopped.
  [[ -f $carry/seed_tuning_$arch.jsonl ]] && "$k" tune --db "$shard_db" --import "$carry/seed_tuning_$arch.jsonl" >> "$log"
  for attempt in 1 2 3 4 5 6; do
    left=$((end - SECONDS - 5))
    ((left > 10)) || break
    if ((gpus > 1)); then export CUDA_VISIBLE_DEVICES=$gpu; fi
    "$k" tune "$op" --problems "${problems[@]}" "${extra[@]}" "${shard[@]}" --db "$shard_db" \
         --commit "$(cat "$carry/COMMIT")" --time-budget "$left" 2>&1 | tr '\r' '\n' >> "$log"
    rc=$?
    echo "== attempt $attempt: exit $rc" >> "$log"
    ((rc == 0)) && break
  done
}
if ((gpus == 1)); then
  tune_on 0 "$db" "$out/tune.log"
else
  for ((g = 0; g < gpus; ++g)); do tune_on "$g" "$out/tuning_$arch.gpu$g.db" "$out/tune.gpu$g.log" & done
  wait
  for ((g = 0; g < gpus; ++g)); do
    "$k" tune --db "$out/tuning_$arch.gpu$g.db" --export "$out/shard$g.jsonl" > /dev/null
    "$k" tune --db "$db" --import "$out/shard$g.jsonl"
    rm -f "$out/shard$g.jsonl" "$out/tuning_$arch.gpu$g.db"*
    cat "$out/tune.gpu$g.log" >> "$out/tune.log" && rm -f "$out/tune.gpu$g.log"
  done
fi
"$k" tune --db "$db" --export "$out/tuning_$arch.jsonl"
grep -E "^tune $op:" "$out/tune.log"
