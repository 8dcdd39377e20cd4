#!/usr/bin/env bash
# Session 64, call A: the soft-capped softmax with part of its exponentials on the FMA pipes.
# (1) kdecl_softcap_probe_pN (N = 0, 2, 3, 4, 8: one exponential in N of each row through exp2_poly; 0 none):
#     Gemma 2 layer shapes, the soft-capped kernel checked on a small problem, then plain and soft-capped
#     timed in turns; (2) the device exp2_poly test and the prefill tests (the paged prefill shares the
#     kernel body); (3) every sm_90 forward kernel against the reference (FmhaSm90Gpu.*), memcheck on a
#     soft-capped call; (4) batch_prefill with and without the soft-cap (as session 63 timed it).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s64a; mkdir -p $R; B=.carry/bin; K=$B/kdecl; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s64a; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT | tee $R/commit.txt
for n in 0 4 3 2 8; do
  t probe_p$n 60 $B/kdecl_softcap_probe_p$n $R/softcap.jsonl; grep -E "check|cost" $R/probe_p$n.log | cut -c1-150
done; save
t dynamic_smem 30 $B/kdecl_gpu_dynamic_smem_tests; grep -E "OK \]|FAILED|Failure|SKIP" $R/dynamic_smem.log
t decode_tests 150 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaSoftmaxGpu.*:FmhaPrefillGpu.*' --gtest_brief=0
grep -E "exp2_poly|OK \]|FAILED|Failure" $R/decode_tests.log | head -20; save
t san_cap 60 compute-sanitizer --tool memcheck --error-exitcode 9 $K run fmha --b 1 --hq 4 --hkv 2 --sq 300 --skv 333 --d 128 --mask causal --softcap 50 --device cuda
grep -hE "ERROR SUMMARY|check:|kernel" $R/san_cap.log | head -4
BD=$B/kdecl_bench_decode
for spec in "--d 128|" "--d 128|--softcap 30"; do
  cfg=${spec%|*}; feat=${spec#*|}
  name=pf$(echo "$cfg $feat" | tr -dc 'a-z0-9')
  [[ -x $BD ]] && { t $name 40 $BD --prefill 2048 --batch 4 --kv 4096 $cfg $feat --reps 20; grep -E "^\s+[0-9]" $R/$name.log | cut -c1-90; }
done; save
# Gemma 2 (soft-cap) against Gemma 3 (the same heads without it) and cuDNN, the dispatcher's choice
t gemma 120 $K bench fmha --problems benchmarks/shapes/fmha_gemma2_softcap.csv --problems benchmarks/shapes/fmha_gemma3.csv \
  --dtype bf16 --device cuda --warmup 3 --iters 20 --top 1 --time-budget 110 --out $R/gemma --label gemma
tail -n 30 $R/gemma.log | cut -c1-160; save
left=$(( 420 - ($(date +%s) - t0) ))
t fwd_tests $left $B/kdecl_fmha_gpu_tests --gtest_filter='FmhaSm90Gpu.*' --gtest_brief=0
grep -E "OK \]|FAILED|Failure" $R/fwd_tests.log | head -20
save; echo done after $(( $(date +%s) - t0 )) s
