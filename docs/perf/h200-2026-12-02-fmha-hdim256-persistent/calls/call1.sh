#!/usr/bin/env bash
# Session 41, call 1 (one H200): column-major C (sm_90 tma_wgmma and the cp_async kernels) and the
# conv suites after 218df57, then the GEMV probe. Everything comes back as one archive.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/r; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run sm90_tests 120 $B/kdecl_gpu_sm90_tests --gtest_brief=1
run memcheck_colc 90 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_gpu_sm90_tests --gtest_brief=1 --gtest_filter='GemmSm90ColumnMajorC.TmaStoreAndStagedPaths'
run lowp_tests 90 $B/kdecl_gpu_sm90_lowp_tests --gtest_brief=1
run alignment_tests 90 $B/kdecl_gpu_alignment_tests --gtest_brief=1
run gpu_tests 200 $B/kdecl_gpu_tests --gtest_brief=1
run probe_gemv 60 $B/kdecl_sm90_probe gemv
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY" $f | head -12; done
tail -n 30 $R/probe_gemv.log
tar -C /tmp -cJf $OUT/results.tar.xz r
