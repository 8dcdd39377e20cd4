#!/usr/bin/env bash
# Session 44, call 2 (one H200; build-fmha): the decode loop with fixed per-thread copy columns (64-bit page and slot
# multiplies only), a lazy running maximum (O rescaled only when a tile's maximum exceeds it by 2^8), the mask only on
# slices that need it, and an fp8 cache widened in registers from ldmatrix fragments (no shared-memory round trip).
# Decode GPU tests, memcheck, then kdecl_bench_decode bf16 / fp8 at batch 1/8/64/256 x 4k/32k, head dims 64 and 256,
# forced splits at batch 1 and 8.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s44c2; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run memcheck 120 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.Fp8CachePerTensorAndPerHeadScales:FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks'
run cli_fp8 60 $B/kdecl run fmha --paged --b 8 --skv 4096 --cache fp8 --per-head-scales --page-size 16 --device cuda
run cli_fp8_d64 60 $B/kdecl run fmha --paged --b 2 --skv 3001 --sq 3 --d 64 --mask causal --cache fp8 --dtype fp16 --device cuda
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|check:" $f | head -8; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 90 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail" | sed "s/\$/ [$*]/" >> $R/bench.log; }
bench --batch 1,8,64,256 --kv 4096,32768
bench --batch 1,8,64,256 --kv 4096,32768 --cache fp8
bench --batch 1,64 --kv 4096,32768 --d 64
bench --batch 1,64 --kv 4096,32768 --d 64 --cache fp8
bench --batch 1,64 --kv 4096,32768 --d 256 --hq 16
bench --batch 1,64 --kv 4096,32768 --d 256 --hq 16 --cache fp8
bench --batch 1,8,64 --kv 4096,32768 --dtype fp16 --cache fp8
for s in 8 16 24 32 48; do bench --batch 1 --kv 4096 --splits $s --cudnn 0; done
for s in 16 24 32 48 64; do bench --batch 1 --kv 32768 --splits $s --cudnn 0; done
for s in 2 3 4 8; do bench --batch 8 --kv 4096,32768 --splits $s --cudnn 0; done
echo "bench after $(( $(date +%s) - t0 )) s"; cat $R/bench.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c2
