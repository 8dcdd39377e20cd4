#!/usr/bin/env bash
# Session 54, call B (one GPU): this session's two kernel changes, checked and measured.
# (1) The split-KV decode with the combine inside the split kernel (the last block of a group to arrive
#     combines; build-fmha, working tree) against HEAD's two-kernel decode (build-fmha-base), timed in turns.
# (2) Concurrently: the decode GPU tests and memcheck on the split tests; the 128 x 160 TMA + wgmma tiles
#     (instances/unverified/gemm_sm90_tma_mid_n.cpp; build-mid: the sm_90 TMA sets and them) through the
#     shipped-instance test of that build, memcheck on three of their runs, every layout at odd sizes.
# (3) Every eligible kernel of build-mid timed against cuBLASLt on the sweep's wave-quantized and weakest
#     M >= 256 shapes (.dev/mid_n_shapes.csv), bf16 rcr.
set -uo pipefail
rm -rf .carry && mkdir -p .carry && .carryzB/zstd -q -d --long=30 -c .carryzB/carry.tar.zst | tar -C .carry -xf - || exit 2
B=$PWD/.carry/bin X=$PWD/.carry/x/bin
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s54cB; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
cat $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
save() { tar -C /tmp -cJf $OUT/results.tar.xz s54cB; }
bench() {  # which (base|new), options...
  local which=$1; shift
  local bin=$X/kdecl_bench_decode; [[ $which == base ]] && bin=$X/kdecl_bench_decode_base
  LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib timeout 60 $bin "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail|error" | sed "s/\$/ [$which $*]/" >> $R/decode_bench.log
}
for round in 1 2; do
  for w in base new; do
    bench $w --batch 1,8 --kv 4096,32768
    bench $w --batch 1 --kv 4096,32768 --cache fp8
    bench $w --batch 1 --kv 4096,32768 --d 64 --cudnn 0
  done
  echo "decode round $round after $(( $(date +%s) - t0 )) s"
done
bench new --batch 64,256 --kv 4096 --cudnn 0
bench new --batch 1 --kv 1024,16384,65536 --cudnn 0
cat $R/decode_bench.log
save
CS=/usr/local/cuda/bin/compute-sanitizer
run decode_tests 150 $X/kdecl_fmha_decode_gpu_tests --gtest_brief=1 &
run decode_memcheck 150 $CS --tool memcheck $X/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.LlamaHeadsSplitAndOneStage:FmhaDecodeGpu.SplitWorkspaceNeedsNoClearing:FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks' &
run decode_racecheck 150 $CS --tool racecheck $X/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.SplitWorkspaceNeedsNoClearing' &
wait
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|RACECHECK SUMMARY|Failure" $f | head -6; done
save
# The shipped dispatcher (HEAD's GEMM sets: gemv ships) on the public sweep, bf16, --top 1, in the time left.
left=$(( ${BUDGET:-420} - ($(date +%s) - t0) ))
echo "sweep budget $left"
if (( left > 40 )); then
  SWEEP_BUDGET=$left SWEEP_DIR=/tmp/s_bf16 SWEEP_SEED=${SEED:-sweep-results} OUT=$R/o_bf16 \
    SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" bash benchmarks/sweep.sh bf16 > $R/sweep_bf16.log 2>&1
  grep -E "^== |geometric|refused|\| bf16" $R/sweep_bf16.log | head -12
fi
save
