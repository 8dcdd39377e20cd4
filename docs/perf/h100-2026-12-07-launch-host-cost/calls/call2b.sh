#!/usr/bin/env bash
# Session 62, call 2: one device query per launch, phase sets sized by the key's dimensions (2-D: 6.7 KB of
# parameters instead of 13.4), no cudaGetLastError after cudaLaunchKernelEx.
# (1) GPU tests: every conv kernel (fwd, bwd_data, bwd_weight) and every shipped instance; (2) the probes
# (parameter size, GEMM, conv); (3) the old binary (0a2378e, .carry/bin/kdecl_old) against the new in turns on batch-1
# ResNet-50 3x3 rows in every direction and on small GEMMs, --launch-cost; (4) R3D-18 bwd_data, --top 3 (best instance against choice).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s62c2; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
OLD=$B/kdecl_old  # 0a2378e, packed beside the new binaries
save() { tar -C /tmp -cJf $OUT/results.tar.xz s62c2; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carry/COMMIT > $R/commit.txt 2>/dev/null
t probe_params 40 $B/kdecl_launch_cost_probe params; grep -E "parameters" $R/probe_params.log
t probe_gemm 20 $B/kdecl_launch_cost_probe 16 768 768
t probe_conv 40 $B/kdecl_launch_cost_probe conv; save
CSV=docs/perf/h100-2026-12-06-conv-narrow-3d-stem/calls/resnet_b1_3x3.csv
ab_round() {
  local round=$1
  for v in old new; do
    K=$B/kdecl; [[ $v == old ]] && K=$OLD
    for d in bwd_data fwd bwd_weight; do
      t ${d}_${v}_$round 40 $K bench conv --problems $CSV --direction $d --dtype bf16 --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label ${d}_${v}_$round
      grep -E "^\| $d dense" $R/${d}_${v}_$round.md | cut -c1-100
    done
    t gemm_${v}_$round 40 $K bench gemm --problems docs/perf/h100-2026-12-07-launch-host-cost/calls/gemm_worst.csv --dtype bf16 --layout rcr --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label gemm_${v}_$round
  done
  save
}
ab_round 1
# (kdecl_gpu_dynamic_smem_tests left out of this carry: the tree must stay under 64 MiB)
t tests 110 $B/kdecl_gpu_tests --gtest_filter='ConvBwdGpu.*:ConvGpuInstances.MatchTheHostReference:ConvGpuInstances.HaloTiles*:ConvDirectGpu.*:ShippedGpuInstances.MatchTheHostReference' --gtest_brief=1
grep -E "PASSED|FAILED|Failure|error" $R/tests.log | head -30; save
(( $(date +%s) - t0 < 150 )) && ab_round 2
# Session 61's call 3, one round: W as stored against the flipped copy (KDECL_CONV_BWD_DATA_STORED_WEIGHTS=0), new binary.
AB=docs/perf/h100-2026-12-06-conv-bwd-data-stored-weights/calls/ab_rows.csv
(( $(date +%s) - t0 < 200 )) && for v in stored copy; do
  [[ $v == copy ]] && export KDECL_CONV_BWD_DATA_STORED_WEIGHTS=0 || unset KDECL_CONV_BWD_DATA_STORED_WEIGHTS
  t ab_$v 60 $B/kdecl bench conv --problems $AB --direction bwd_data --dtype bf16 --top 1 --warmup 5 --iters 20 --launch-cost --out $R --label ab_$v
  grep -E "^\| bwd_data dense" $R/ab_$v.md | cut -c1-100
done
unset KDECL_CONV_BWD_DATA_STORED_WEIGHTS; save
left=$(( 250 - ($(date +%s) - t0) )); (( left > 60 )) && left=60
if (( left > 40 )); then
  t r3d $((left + 10)) $B/kdecl bench conv --problems benchmarks/shapes/conv_r3d_18.csv --where class=dense --direction bwd_data --dtype bf16 --top 3 --warmup 5 --iters 20 --time-budget $((left - 10)) --out $R --label r3d_bwd_data
  grep -E "^\| bwd_data dense" $R/r3d_bwd_data.md | cut -c1-200
fi
save; echo done after $(( $(date +%s) - t0 )) s
