#!/usr/bin/env bash
# Call 1: the GPU tuning tests (with --confirm), then the GEMM retune with confirmation.
cd "$(dirname "$0")/.."
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
K=$PWD/.carry/bin/kdecl
export LD_LIBRARY_PATH=$PWD/.carry/lib
for op in gemm fmha; do
  cmake -DKDECL=$K -DWORK_DIR=/tmp/tt_$op -DOP=$op -P tests/tuning_gpu_test.cmake > $OUT/tunetest_$op.log 2>&1
  echo "tuning_gpu_test $op: rc=$?"
done
tail -3 /tmp/tt_gemm/c.jsonl | cut -c1-300
mkdir -p /tmp/tune
[[ -f .dev/seed.jsonl ]] && cp .dev/seed.jsonl .carry/seed_tuning_sm90.jsonl
TUNE_ARGS="--confirm 6 --iters 12" OUT=/tmp/tune bash benchmarks/tuning/device_tune.sh .carry ${BUDGET:-470} gemm
cp /tmp/tune/tune.log /tmp/tune/gpu.csv $OUT/
xz -c /tmp/tune/tuning_sm90.jsonl > $OUT/tuning_sm90.jsonl.xz
grep -c confirmed_rounds\":6 /tmp/tune/tuning_sm90.jsonl
