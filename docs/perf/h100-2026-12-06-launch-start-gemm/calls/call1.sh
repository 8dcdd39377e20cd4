#!/usr/bin/env bash
# Session 57, call 1 (binaries of 5e9e45e): (1) the back-to-back bench after its fix, with the
# dependent-launch A/B, on the 150 weakest bf16 shapes; (2) Nsight Compute on sm90_probe ncu (where a
# short GEMM's 7-10 us go: kernel duration against event time); (3) Nsight Compute on the batch-1 decode.
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
B=$PWD/.carry/bin
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
export KDECL_BENCH_DATE=$(date -u +%Y-%m-%d) KDECL_BENCH_COMMIT=$(cat .carry/COMMIT)
t0=$(date +%s)
R=/tmp/s57c1; mkdir -p $R
save() { tar -C /tmp -cJf $OUT/results.tar.xz s57c1; }
left() { echo $(( ${BUDGET:-560} - ($(date +%s) - t0) )); }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv > $R/gpu.csv
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
# (3) first: cheap. Event times of the decode, then ncu per kernel.
$B/kdecl_bench_decode --batch 1 --kv 4096,32768 --reps 20 --cudnn 0 > $R/decode_events.log 2>&1
echo "decode events rc=$?"; tail -6 $R/decode_events.log
timeout 90 $ncu --clock-control none --kernel-name regex:paged --section SpeedOfLight --section LaunchStats \
  --section Occupancy --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max \
  $B/kdecl_bench_decode --batch 1 --kv 4096,32768 --reps 2 --cudnn 0 > $R/decode_ncu.log 2>&1
echo "decode ncu rc=$?"; grep -E "paged_|gpu__time_duration|sm__cycles_active|Grid Size|Duration" $R/decode_ncu.log | head -40
save
# (2) GEMM probe under ncu
timeout 150 $ncu --clock-control none --section SpeedOfLight --section LaunchStats --section Occupancy \
  --metrics gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max \
  $B/kdecl_sm90_probe ncu > $R/gemm_ncu.log 2>&1
echo "gemm ncu rc=$?"; grep -cE "gpu__time_duration" $R/gemm_ncu.log
save
# (1) back to back, the rest of the time
csv=docs/perf/h100-2026-12-06-dependent-launch-gemm/back_to_back/weak150_bf16.csv
$B/kdecl bench gemm --problems $csv --dtype bf16 --layout rcr --warmup 10 --iters 50 --target-ms 100 --top 1 \
  --back-to-back --dependent-launch-ab --out $R/b2b --label weak150_b2b_ab --time-budget $(( $(left) - 40 )) \
  > $R/b2b.log 2>&1
echo "b2b rc=$? after $(( $(date +%s) - t0 )) s"
tr '\r' '\n' < $R/b2b.log | grep -v "^bench gemm" | tail -4
python3 - $R/b2b/weak150_b2b_ab.jsonl <<'PY'
import json, math, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = [r for r in rows if (r.get("dispatcher") or {}).get("ms") and (r.get("cublas") or {}).get("ms")
      and (r.get("dispatcher_without_dependent_launch") or {}).get("ms")]
print(f"{len(rows)} records, {len(rows) - len(ok)} with a zero or missing time")
g = lambda v: math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
on = sorted(r["cublas"]["ms"] / r["dispatcher"]["ms"] for r in ok)
off = sorted(r["cublas"]["ms"] / r["dispatcher_without_dependent_launch"]["ms"] for r in ok)
print(f"vs cuBLASLt back to back: with dependent launch {g(on):.3f} (P10 {on[len(on)//10]:.3f}), without {g(off):.3f} (P10 {off[len(off)//10]:.3f})")
PY
save
