#!/usr/bin/env bash
# Session 44, call 1 (one H200; build-fmha, attention sets only): the decode kernel with its page-table reads one
# tile ahead and the combine on 4 warps per row with 16-byte loads. Decode GPU tests, memcheck on two of them, the
# CLI's prefill over pages on the GPU (not run before), then kdecl_bench_decode: bf16 and an fp8 cache at batch
# 1/8/64/256 x 4k/32k, forced splits at batch 1 and 8, head dims 64 and 256.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
export LD_LIBRARY_PATH=$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s44c1; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run memcheck 100 /usr/local/cuda/bin/compute-sanitizer --tool memcheck $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1 --gtest_filter='FmhaDecodeGpu.LlamaHeadsSplitAndOneStage:FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks'
run cli_prefill 60 $B/kdecl run fmha --paged --kv-lengths 700,64,0,129 --prefill 200 --mask causal --device cuda
run cli_prefill_list 60 $B/kdecl run fmha --paged --kv-lengths 5000,17,300 --prefill 333 --table list --page-size 32 --d 64 --device cuda
run cli_decode 60 $B/kdecl run fmha --paged --b 3 --skv 4099 --sq 2 --mask causal --sinks --page-size 16 --splits auto --device cuda
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|ERROR SUMMARY|Failure|max|error" $f | head -8; done
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib
bench() { timeout 90 $B/kdecl_bench_decode "$@" --reps 20 2>&1 | grep -E "^ +[0-9]|fail" | sed "s/\$/ [$*]/" >> $R/bench.log; }
bench --batch 1,8,64,256 --kv 4096,32768
bench --batch 1,8,64,256 --kv 4096,32768 --cache fp8
echo "main bench after $(( $(date +%s) - t0 )) s"
for s in 8 16 32 64; do bench --batch 1 --kv 4096 --splits $s --cudnn 0; done
for s in 16 32 64 128; do bench --batch 1 --kv 32768 --splits $s --cudnn 0; done
for s in 2 4 8 16; do bench --batch 8 --kv 4096 --splits $s --cudnn 0; done
bench --batch 1,64 --kv 4096,32768 --d 64
bench --batch 1,64 --kv 4096,32768 --d 256 --hq 16
echo "bench after $(( $(date +%s) - t0 )) s"; cat $R/bench.log
tar -C /tmp -cJf $OUT/results.tar.xz s44c1
