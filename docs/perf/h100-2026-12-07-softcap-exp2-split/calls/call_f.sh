#!/usr/bin/env bash
# Session 64, call F: the shipped choice (8 chains in the soft-capped head-dim-128 kernels, 1 elsewhere):
# kdecl_softcap_probe_p0_c0 (the kernels' own) against _p0_c1 (one chain everywhere), interleaved, twice;
# then the attention GPU tests on the kernels built with it.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s64f; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
cat .carry/COMMIT
for round in 1 2; do
  for k in 1 0; do
    t probe_c${k}_r$round 60 $B/kdecl_softcap_probe_p0_c$k $R/shipped.jsonl; grep -E "FAIL|cost" $R/probe_c${k}_r$round.log | cut -c1-120
  done
done
t fwd 120 $B/kdecl_fmha_gpu_tests --gtest_brief=0
grep -E "OK \]|FAILED|Failure|PASSED" $R/fwd.log | tail -13
t paged 150 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaPrefillGpu.*:FmhaPagedRegisteredGpu.*'
grep -E "OK \]|FAILED|Failure|PASSED" $R/paged.log | head
tar -C /tmp -cJf $OUT/results.tar.xz s64f; echo done after $(( $(date +%s) - t0 )) s
