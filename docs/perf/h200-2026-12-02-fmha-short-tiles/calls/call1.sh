#!/usr/bin/env bash
# Session 42, call 1 (one H200), at 42202ac: the attention GPU suite with the key-bias (padding mask)
# problem, then Nsight Compute (full set) on the weakest short masked rows, ours and cuDNN's kernel
# side by side, then the rows of the key bias and the short rows timed against cuDNN.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
NVRTC=$(python3 -c 'import glob, os, site
hits = [h for d in site.getsitepackages() for h in glob.glob(os.path.join(d, "nvidia", "**", "libnvrtc.so*"), recursive=True)]
print(os.path.dirname(hits[0]) if hits else "")' 2>/dev/null)
R=/tmp/r1; mkdir -p $R/ncu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
BL="$CUDNN:$NVRTC:$PWD/.carry/lib"
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
prof() {  # name, kernel regex, bench args...
  local name=$1 rx=$2; shift 2
  LD_LIBRARY_PATH=$BL timeout 100 $NCU --clock-control none --set full -k "regex:$rx" --launch-skip 2 --launch-count 1 \
    -o $R/ncu/$name -f $B/kdecl bench fmha "$@" --dtype bf16 --warmup 1 --iters 3 --top 1 --out $R/ncu --label $name > $R/ncu/$name.log 2>&1
  echo "ncu $name rc=$? after $(( $(date +%s) - t0 )) s"
  $NCU --import $R/ncu/$name.ncu-rep --page details --print-units base > $R/ncu/$name.txt 2>&1
}
S512="--b 32 --hq 32 --hkv 8 --sq 512 --d 128 --mask bottom_right"
SW="--b 32 --hq 64 --hkv 8 --sq 512 --d 64 --window 127,0 --sinks"
L4K="--b 4 --hq 32 --hkv 8 --sq 4096 --d 128 --mask bottom_right"
prof ours_causal512 tma_wgmma_ws $S512
prof cudnn_causal512 'sdpa|cudnn' $S512
prof ours_window127 tma_wgmma_ws $SW
prof cudnn_window127 'sdpa|cudnn' $SW
prof ours_causal4k tma_wgmma_ws $L4K
prof cudnn_causal4k 'sdpa|cudnn' $L4K
ls -la $R/ncu | head -30
for f in $R/ncu/*.txt; do echo "== $f"; grep -E "^  [a-z]|Duration|Registers|Achieved Occupancy|Compute \(SM\) Throughput|Memory Throughput|L2 Hit|Issue Slots Busy|Warp Cycles Per Issued|Block Size|Grid Size|Dynamic Shared" $f | head -20; done
left=$(( 560 - ($(date +%s) - t0) ))
BENCH_BUDGET=$((left - 20)) BENCH_DIR=/tmp/bf OUT=$R BENCH_DTYPES=bf16 BENCH_FMHA_FILTER='name~s512' \
  BENCH_TIMING="--warmup 3 --iters 20 --target-ms 40 --top 2" bash benchmarks/bench_ops.sh fmha > $R/bench_fmha.log 2>&1
echo "bench rc=$?"; tail -n 5 $R/bench_fmha.log
tar -C /tmp -cJf $OUT/results.tar.xz r1
