#!/usr/bin/env bash
# Measures how far declarations scale in each compiler (issue 6) and prints
# Markdown for docs/perf/compile_time.md:
#  1. the largest single constant evaluation of each set, in clang steps: the
#     smallest -fconstexpr-steps that compiles its expansion (clang's default is
#     1,048,576), found by bisection to 2%;
#  2. wall time and peak memory of expanding sets of growing size (validation of
#     every target and expansion, no kernels: what every pass does before it
#     instantiates its own backend's kernels), syntax only, with each compiler's
#     default limits.
# Usage: tests/consumer/measure_limits.sh   (from anywhere; takes several minutes)
set -uo pipefail  # a compiler that fails is a table entry, not the end of the run
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
incs=(-I"$root/include" -I"$root/arch/include" -I"$root/dsl/include" -I"$root/tests/consumer/include")
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"

# probe NAME KEYS SET-ARGUMENTS: writes a file that expands one set and checks its size; prints its path.
probe() {
  local name=$1 keys=$2; shift 2
  cat > "$tmp/$name.cpp" <<CPP
#include "consumer/declarations.hpp"
namespace probe_sets {
using namespace kdecl::dsl;
using kdecl::dsl::any;
inline constexpr auto set = kernel_set($*);
}  // namespace probe_sets
static_assert(kdecl::dsl::expand_legal<probe_sets::set>().size() == $keys);
CPP
  echo "$tmp/$name.cpp"
}
host='gemm().dtype(fp32).pipeline(host_blocked).tile(any, any, any).warp_tile(any).pad(any, any, any)'
layouts=(rcr rrr crr ccr rcc rrc crc ccc)
host_32000="targets(host)"
for l in "${layouts[@]}"; do host_32000+=", $host.layout($l)"; done
files=("$(probe wide 2000 CONSUMER_WIDE_HOST_SET):2,000 host (one declaration)"
       "$(probe fp32_crr 500 CONSUMER_ISSUE_FP32_CRR_SET):500 host (issue 6, set 1)"
       "$(probe bf16 5832 CONSUMER_ISSUE_BF16_SET):5,832: 400 host + 5,432 sm_90 (issue 6, set 2)"
       "$(probe host_32000 32000 "$host_32000"):32,000 host (eight declarations)"
       "$(probe sweep 23320 "targets(host, sm_80, sm_86, sm_89, sm_90, gfx908, gfx90a, gfx942, gfx950, gfx1100, gfx1200, gfx1201), gemm().dtype(fp16).tile(any, any, 64).warps(any).warp_tile(any).pipeline(any).epilogue(any).scheduler(any).pad(true, true, true)"):23,320 on 12 targets (benchmarks/compile_time/wildcard_sweep.cpp)")

bisect() {  # bisect FILE -> smallest -fconstexpr-steps that compiles FILE (within 2%)
  local lo=1000 hi=1048576
  ok() { clang++ -std=c++20 -fsyntax-only "${incs[@]}" "-fconstexpr-steps=$1" "$2" > /dev/null 2>&1; }
  until ok $hi "$1"; do lo=$hi; hi=$((hi * 4)); ((hi < 1000000000)) || { echo "> 1e9"; return; }; done
  while ((hi - lo > hi / 50)); do
    local mid=$(((lo + hi) / 2))
    if ok $mid "$1"; then hi=$mid; else lo=$mid; fi
  done
  echo $hi
}
measure() {  # measure COMMAND... -> "seconds s, MB"
  if /usr/bin/time -o "$tmp/time" -f "%e %M" "$@" > /dev/null 2> "$tmp/err"; then
    read -r s kb < "$tmp/time"
    echo "$s s, $((kb / 1024)) MB"
  else
    echo "fails: $(grep -m1 -E 'error' "$tmp/err" | cut -c1-100)"
  fi
}

echo "| set (keys) | largest evaluation (clang steps) | share of clang's default | g++ | clang++ | hipcc | nvcc |"
echo "|---|---|---|---|---|---|---|"
for entry in "${files[@]}"; do
  file=${entry%%:*} what=${entry#*:}
  steps=$(bisect "$file")
  share=$(python3 -c "print(f'{100 * $steps / 1048576:.0f}%')")
  g=$(measure g++ -std=c++20 -fsyntax-only "${incs[@]}" "$file")
  c=$(measure clang++ -std=c++20 -fsyntax-only "${incs[@]}" "$file")
  h=$(measure hipcc -std=c++20 -x hip --offload-arch=gfx90a -fsyntax-only "${incs[@]}" "$file")
  n=$(measure "$nvcc" -std=c++20 -x cu --expt-relaxed-constexpr -gencode=arch=compute_80,code=sm_80 \
        -fdevice-syntax-only -Xcompiler -fsyntax-only "${incs[@]}" -c "$file" -o "$tmp/nvcc.o")
  echo "| ${what} | $steps | $share | $g | $c | $h | $n |"
done
