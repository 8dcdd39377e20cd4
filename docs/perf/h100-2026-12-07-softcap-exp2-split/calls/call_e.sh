#!/usr/bin/env bash
# Session 64, call E: the shipped attention kernels after the softmax's restructuring (99cb3ba, one chain, both rows'
# loops interleaved): every sm_90 forward kernel, the paged prefill and every registered paged kernel against the
# reference; memcheck on the test that runs a soft-capped problem through the dispatcher.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s64e; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
cat .carry/COMMIT
t fwd 120 $B/kdecl_fmha_gpu_tests --gtest_brief=0
grep -E "OK \]|FAILED|Failure|tests ran" $R/fwd.log | tail -12
t paged 150 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaPrefillGpu.*:FmhaPagedRegisteredGpu.*:FmhaSoftmaxGpu.*'
grep -E "OK \]|FAILED|Failure" $R/paged.log | head
t memcheck 120 compute-sanitizer --tool memcheck --error-exitcode 9 $B/kdecl_fmha_gpu_tests --gtest_filter='FmhaSm90Gpu.DispatcherPrefersTmaWgmmaAndFallsBack'
grep -E "ERROR SUMMARY|OK \]|FAILED" $R/memcheck.log
tar -C /tmp -cJf $OUT/results.tar.xz s64e; echo done after $(( $(date +%s) - t0 )) s
