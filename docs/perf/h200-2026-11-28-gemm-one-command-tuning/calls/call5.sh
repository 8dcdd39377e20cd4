#!/usr/bin/env bash
# Call 5 (nvidia-h200-x2): the public GEMM sweep against cuBLASLt with the retrained model,
# bf16 on GPU 0 and fp16 on GPU 1 at once (--top 1: the dispatcher's choice and cuBLASLt), as far
# as the budget goes (the shapes in file order, as the earlier partial sweeps).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
nvidia-smi -L
for g in 0 1; do
  dt=$([[ $g == 0 ]] && echo bf16 || echo fp16)
  (CUDA_VISIBLE_DEVICES=$g SWEEP_BUDGET=${BUDGET:-480} SWEEP_DIR=/tmp/s_$dt OUT=/tmp/o_$dt SWEEP_TIMING="--warmup 10 --iters 50 --target-ms 100 --top 1" \
     bash benchmarks/sweep.sh $dt > /tmp/sweep_$dt.log 2>&1) &
done
wait
for dt in bf16 fp16; do grep -E "^== |geometric|refused" /tmp/sweep_$dt.log | head -12; done
tar -C /tmp -cJf $OUT/sweeps.tar.xz o_bf16 o_fp16
