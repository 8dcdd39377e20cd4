#!/usr/bin/env bash
# Session 43, call 5 (one H200; full build at 6a7a2cd): the attention GPU tests again after the host-side
# refactor of tensor spans (fmha_check's buffers, the CLI's operands), `kdecl run fmha` on a few problems
# (the CLI's check), and a short `kdecl bench fmha` (its operand buffers).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
CUDNN=$(python3 -c "import nvidia.cudnn, os; print(os.path.dirname(nvidia.cudnn.__file__))" 2>/dev/null)/lib
export LD_LIBRARY_PATH=$CUDNN:$PWD/.carry/lib KDECL_MODEL_DIR=$PWD/models
t0=$(date +%s)
R=/tmp/s43c5; mkdir -p $R
run() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s" | tee -a $R/$name.log; }
run fmha_tests 150 $B/kdecl_fmha_gpu_tests --gtest_brief=1
run decode_tests 120 $B/kdecl_fmha_decode_gpu_tests --gtest_brief=1
run cli_run1 30 $B/kdecl run fmha --b 2 --hq 8 --hkv 2 --sq 300 --skv 1111 --d 128 --mask bottom_right --lse --dtype bf16 --device cuda
run cli_run2 30 $B/kdecl run fmha --varlen 5:20,0:1,129:300 --hq 4 --hkv 4 --d 64 --bias elementwise --lse --dtype fp16 --device cuda
run cli_run3 30 $B/kdecl run fmha --b 3 --hq 4 --hkv 2 --sq 0 --skv 20 --d 64 --lse --dtype bf16 --device cuda
run bench 60 $B/kdecl bench fmha --b 4 --hq 32 --hkv 8 --sq 2048 --d 128 --mask causal --dtype bf16 --lse --warmup 3 --iters 10 --top 1 --out $R/bench --label b
for f in $R/*.log; do echo "== $f"; grep -E "FAILED|PASSED|rc=|PASS|FAIL|error|^\| bf16" $f | head -8; done
tar -C /tmp -cJf $OUT/results.tar.xz s43c5
