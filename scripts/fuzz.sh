#!/usr/bin/env bash
# Runs every libFuzzer target (tests/fuzz/) for 10^6 inputs each, one after
# another, from its corpus, and records the figures. Not part of CI (CI runs
# 10^4 inputs per target through CTest, all but the CLI fuzzer: its sanitized
# copy of the kdecl tool is two thirds of the sub-build's time).
#
#   scripts/fuzz.sh [--merge] [FUZZER...]      (default: all five)
#   FUZZ_RUNS=N   inputs per fuzzer (default 1000000)
#   FUZZ_SEED=S   libFuzzer seed (default 1)
#   FUZZ_BUILD=dir  the sanitized clang build (default build-fuzz)
#
# Builds the fuzzers with clang, -O1 -gline-tables-only, ASan + UBSan (every UB
# check fatal), exactly as the CTest ExternalProject does. Each run starts from
# tests/fuzz/corpus/<name> (never modified) and writes new inputs to
# $FUZZ_BUILD/fuzz-work/<name>/new. Prints a markdown table (date, commit,
# inputs, seconds, inputs/s, crashes, sanitizer reports, peak RSS) and writes
# it to $FUZZ_BUILD/fuzz-results.md; exits non-zero on any crash or report.
# --merge then folds the new inputs that add coverage into the repository's
# corpus, minimized (libFuzzer -merge=1).
set -euo pipefail
cd "$(dirname "$0")/.."
merge=0
fuzzers=()
for arg in "$@"; do
  case "$arg" in
    --merge) merge=1 ;;
    *) fuzzers+=("$arg") ;;
  esac
done
((${#fuzzers[@]})) || fuzzers=(gemm_problem conv_fmha_problem kernel_name registry_json cli)
runs=${FUZZ_RUNS:-1000000}
seed=${FUZZ_SEED:-1}
build=${FUZZ_BUILD:-build-fuzz}
cxx=${FUZZ_CXX:-clang++}

launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  "-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined -fno-sanitize-recover=all -fsanitize=fuzzer-no-link -fno-omit-frame-pointer" \
  -DKDECL_FUZZ_BUILD=ON -DKDECL_FUZZ_CLI=ON -DKDECL_CUDA=OFF -DKDECL_HIP=OFF -DKDECL_BUILD_EXAMPLES=OFF -DKDECL_BUILD_BENCHMARKS=OFF \
  "${launcher[@]}" > "$build.configure.log"
cmake --build "$build" --target kdecl_fuzzers -j "${FUZZ_JOBS:-2}"

commit=$(git rev-parse --short=12 HEAD)
git diff --quiet HEAD -- src include tools tests/fuzz || commit="$commit (with uncommitted changes)"
date=$(date -u +%Y-%m-%d)
machine="$(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $($cxx --version | head -1)"
results="$build/fuzz-results.md"
{
  echo "| fuzzer | date | commit | inputs | seconds | inputs/s | crashes | sanitizer reports | peak RSS MiB | corpus (files) |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} > "$results"
failed=0
for name in "${fuzzers[@]}"; do
  work="$build/fuzz-work/$name"
  rm -rf "$work" && mkdir -p "$work/new"
  corpus="tests/fuzz/corpus/$name"
  echo "fuzz.sh: $name: $runs inputs from $corpus ($(ls "$corpus" | wc -l) files)" >&2
  start=$(date +%s.%N)
  rc=0
  "$build/tests/fuzz/fuzz_$name" "$work/new" "$corpus" -runs="$runs" -seed="$seed" -timeout=120 -rss_limit_mb=4096 \
    -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$work/" > "$work/log" 2>&1 || rc=$?
  seconds=$(echo "$(date +%s.%N) - $start" | bc)
  executed=$(awk '/stat::number_of_executed_units/ {print $2}' "$work/log")
  rss=$(awk '/stat::peak_rss_mb/ {print $2}' "$work/log")
  crashes=$(find "$work" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  reports=$(grep -cE "ERROR: (Address|Leak|UndefinedBehavior)Sanitizer|runtime error:|invariant broken" "$work/log" || true)
  rate=$(echo "${executed:-0} / $seconds" | bc)
  echo "| $name | $date | $commit | ${executed:-?} | $(printf '%.0f' "$seconds") | $rate | $crashes | $reports | ${rss:-?} | $(ls "$corpus" | wc -l) |" >> "$results"
  if ((rc != 0 || crashes != 0 || reports != 0)); then
    failed=1
    echo "fuzz.sh: $name FAILED (exit $rc); log: $work/log" >&2
    tail -40 "$work/log" >&2
  fi
  if ((merge)); then
    merged="$work/merged" && mkdir -p "$merged"
    "$build/tests/fuzz/fuzz_$name" -merge=1 "$merged" "$corpus" "$work/new" -close_fd_mask=3 > "$work/merge.log" 2>&1
    find "$corpus" -type f -delete && cp "$merged"/* "$corpus"/
    echo "fuzz.sh: $name: corpus now $(ls "$corpus" | wc -l) files" >&2
  fi
done
echo "machine: $machine" >> "$results"
cat "$results"
exit $failed
