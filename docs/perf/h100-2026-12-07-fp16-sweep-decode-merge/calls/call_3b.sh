#!/usr/bin/env bash
# Session 67, call 3b (sized for the 270 s of device time left after two failed machine starts; no
# machine came): decode GPU tests, block timelines (base = d7dd083's kernel, new = the patch's), two
# rounds of base and new bf16 timings (cuDNN off) and the new kernel with cuDNN in turns, the fp8 and
# head-dim-64 kernels once, compute-sanitizer memcheck and racecheck on one test (the patch changes
# shared-memory indexing).
# To run it: build kdecl_fmha_decode_gpu_tests, kdecl_bench_decode and kdecl_decode_timeline on main, with
# only the paged attention sets (cmake --preset device -B build-paged -DKDECL_BUILD_TESTS=ON
# -DKDECL_INSTANCE_FILTER=fmha_paged: 6 minutes on two cores without ccache, 9 MB binaries, where the full
# build takes about 30 minutes and links 200 MB into each), and copy the last two as kdecl_bench_decode_base / kdecl_decode_timeline_base; git apply
# ../decode_merge_prologue.patch and build the three again; put the five in .carry/bin, the libraries
# benchmarks/carry.sh gathers in .carry/lib, and pack .carryz as carry.sh does (its last lines; 18 MB
# with every set linked, far less with the filter).
set -uo pipefail
bash benchmarks/unpack_carry.sh > /dev/null || exit 2
source benchmarks/vendor_libs.sh 2>/dev/null
export LD_LIBRARY_PATH="$vendor_library_path" KDECL_MODEL_DIR=$PWD/models
R=/tmp/s67; mkdir -p $R; B=.carry/bin; t0=$(date +%s)
save() { tar -C /tmp -cJf $OUT/results.tar.xz s67; }
t() { local name=$1 lim=$2; shift 2; timeout $lim "$@" > $R/$name.log 2>&1; echo "$name rc=$? after $(( $(date +%s) - t0 )) s"; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader | tee $R/gpu.txt
cat .carryz/COMMIT | tee $R/commit.txt
t tests 90 $B/kdecl_fmha_decode_gpu_tests; grep -E "^\[  (PASSED|FAILED) |FAILED  \]|Failure" $R/tests.log | head -20; save
for bin in base new; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t timeline_$bin 25 $B/kdecl_decode_timeline$sfx --batch 1,8 --kv 4096,16384
done
save
for bin in base new base new; do
  sfx=; [[ $bin == base ]] && sfx=_base
  t ${bin}_bf16 25 $B/kdecl_bench_decode$sfx --batch 1,2,8,64 --kv 4096,16384 --reps 30 --cudnn 0
  cat $R/${bin}_bf16.log >> $R/${bin}_bf16_all.log
done
save
t new_cudnn 30 $B/kdecl_bench_decode --batch 1,8,64 --kv 4096,16384 --reps 30
t new_fp8_d64 25 bash -c "$B/kdecl_bench_decode --batch 1,8 --kv 4096,16384 --cache fp8 --reps 30 --cudnn 0; $B/kdecl_bench_decode --batch 1,8 --kv 4096,16384 --d 64 --reps 30 --cudnn 0"
save
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for tool in memcheck racecheck; do
  t sanitizer_$tool 60 $CS --tool $tool --error-exitcode 9 $B/kdecl_fmha_decode_gpu_tests --gtest_filter='FmhaDecodeGpu.GqaMqaSpeculativeMasksSoftCapSinks'
  tail -2 $R/sanitizer_$tool.log
done
save
echo "done after $(( $(date +%s) - t0 )) s"
