#!/usr/bin/env bash
# Session 54, call A (one GPU): this session's two kernel changes, checked and measured.
# (1) The split-KV decode with the combine inside the split kernel (the last block of a group to arrive
#     combines; build-fmha, working tree) against HEAD's two-kernel decode (build-fmha-base), timed in turns.
# (2) Concurrently: the decode GPU tests and memcheck on the split tests; the 128 x 160 TMA + wgmma tiles
#     (instances/unverified/gemm_sm90_tma_mid_n.cpp; build-mid: the sm_90 TMA sets and them) through the
#     shipped-instance test of that build, memcheck on three of their runs, every layout at odd sizes.
# (3) Every eligible kernel of build-mid timed against cuBLASLt on the sweep's wave-quantized and weakest
#     M >= 256 shapes (.dev/mid_n_shapes.csv), bf16 rcr.
set -uo pipefail
rm -rf .carry && mkdir -p .carry && .carryzA/zstd -q -d --long=30 -c .carryzA/carry.tar.zst | tar -C .carry -xf - || exit 2
B=$PWD/.carry/bin X=$PWD/.carry/x/bin
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s54cA; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
cat $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
save() { tar -C /tmp -cJf $OUT/results.tar.xz s54cA; }
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
K=gemm_bf16_rcr_tma_wgmma_cshuffle_intrawave_128x160x64_8x1x1_16x160x16_s5_v16_padmnk_sm_90
CS=/usr/local/cuda/bin/compute-sanitizer
run decode_tests 150 $X/kdecl_fmha_decode_gpu_tests --gtest_brief=1 &
run decode_memcheck 150 $CS --tool memcheck $X/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.LlamaHeadsSplitAndOneStage:FmhaDecodeGpu.SplitWorkspaceNeedsNoClearing:FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks' &
run mid_n_shipped_tests 150 $B/kdecl_gpu_tests --gtest_brief=1 --gtest_filter='ShippedGpuInstances.*' &
run mid_n_memcheck_odd 120 $CS --tool memcheck --error-exitcode 9 $B/kdecl run gemm --m 1001 --n 1001 --k 999 --dtype bf16 --device cuda --kernel $K &
run mid_n_memcheck_splitk 120 $CS --tool memcheck --error-exitcode 9 $B/kdecl run gemm --m 100 --n 320 --k 8192 --dtype bf16 --device cuda --kernel $K &
run mid_n_memcheck_tail 120 $CS --tool memcheck --error-exitcode 9 $B/kdecl run gemm --m 1576 --n 3072 --k 4096 --dtype bf16 --device cuda --kernel $K --check sampled &
wait
for L in rcr ccr rcc rrc; do for dt in bf16 fp16; do
  k=gemm_${dt}_${L}_tma_wgmma_cshuffle_intrawave_128x160x64_8x1x1_16x160x16_s5_v16_padmnk_sm_90
  timeout 30 $B/kdecl run gemm --m 1576 --n 3072 --k 1024 --dtype $dt --layout $L --device cuda --kernel $k 2>&1 | tail -1 | sed "s/^/$dt $L: /" >> $R/mid_n_layouts.log
  timeout 30 $B/kdecl run gemm --m 77 --n 161 --k 1000 --batch 3 --alpha 0.5 --beta 0.25 --dtype $dt --layout $L --device cuda --kernel $k 2>&1 | tail -1 | sed "s/^/$dt $L odd batched: /" >> $R/mid_n_layouts.log
done; done
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|check:|mismatch" $f | head -10; done
save
left=$(( ${BUDGET:-560} - ($(date +%s) - t0) ))
echo "bench budget $left"
(( left > 30 )) && timeout $left $B/kdecl bench gemm --problems .dev/mid_n_shapes.csv --dtype bf16 --layout rcr --top 0 \
  --device cuda --out $R/bench --label mid_n_bf16 --time-budget $(( left - 10 )) > $R/mid_n_bench.log 2>&1
echo "bench rc=$? after $(( $(date +%s) - t0 )) s"; tail -5 $R/mid_n_bench.log
save
