#!/usr/bin/env bash
# Session 40, call A (one H200): retune the sm_90 GEMM on the models' layers in rcr (bf16 first,
# then fp16; .dev/tune/rcr_*.csv from benchmarks/tuning/problems_sm90*.csv), the documented
# tuning options, into a fresh database (the lists: rcr_problems.py); then the conv and GEMM GPU suites after the conv
# TMA-store change, in what is left. Everything comes back as one archive.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=${R:-/tmp/r}; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
cat $R/gpu.csv
db=$R/tuning_sm90_rcr.db
[[ -f .dev/tune/seed.jsonl.xz ]] && xz -dkf .dev/tune/seed.jsonl.xz
[[ -f .dev/tune/seed.jsonl ]] && $B/kdecl tune --db $db --import .dev/tune/seed.jsonl > /dev/null
tune_budget=${TUNE_BUDGET:-390}
$B/kdecl tune gemm --problems .dev/tune/rcr_bf16.csv .dev/tune/rcr_fp16.csv --db $db --commit "$(cat .carry/COMMIT)" \
  --confirm 16 --confirm-within 0.7 --confirm-rounds 6 --target-ms 10 --iters 12 --time-budget $tune_budget 2>&1 \
  | tr '\r' '\n' > $R/tune.log
echo "tune rc=${PIPESTATUS[0]} after $(( $(date +%s) - t0 )) s"; tail -n 3 $R/tune.log
$B/kdecl tune --db $db --export $R/tuning_sm90_rcr.jsonl > /dev/null
wc -l $R/tuning_sm90_rcr.jsonl
left() { echo $(( ${BUDGET:-550} - ($(date +%s) - t0) )); }
if (( $(left) > 40 )); then
  timeout $(( $(left) - 30 )) $B/kdecl_gpu_tests --gtest_brief=1 > $R/gpu_tests.log 2>&1; echo "gpu tests rc=$?" >> $R/gpu_tests.log
fi
if (( $(left) > 25 )); then
  timeout $(( $(left) - 10 )) $B/kdecl_gpu_sm90_tests --gtest_brief=1 > $R/sm90_tests.log 2>&1; echo "sm90 tests rc=$?" >> $R/sm90_tests.log
fi
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|kernels for|runs checked" $f | head -20; done
[[ -n ${NO_TAR:-} ]] || tar -C /tmp -cJf $OUT/results.tar.xz r
